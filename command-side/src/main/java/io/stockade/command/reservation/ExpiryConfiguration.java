package io.stockade.command.reservation;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.Task;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * Persistent deadlines: db-scheduler over the service's database. With this {@link Scheduler} bean,
 * Axon uses its {@code DbSchedulerDeadlineManager}; a deadline is a row of {@code scheduled_tasks},
 * so it survives restarts and fires on whichever instance polls first. Reservations are expired by
 * {@link ExpiringReservations} now; this runs the expiry deadlines of reservations stored before.
 */
@Configuration(proxyBeanMethods = false)
class ExpiryConfiguration {

  @Bean(destroyMethod = "stop")
  Scheduler expiryScheduler(
      DataSource dataSource,
      List<Task<?>> tasks,
      @Value("${stockade.expiry.polling-interval:1s}") Duration pollingInterval) {
    return Scheduler.create(new TransactionAwareDataSourceProxy(dataSource), tasks)
        .pollingInterval(pollingInterval)
        .alwaysPersistTimestampInUTC()
        .build();
  }

  /** Deadlines run once the whole application, Axon included, is ready to handle them. */
  @EventListener(ApplicationReadyEvent.class)
  void startExpiry(ApplicationReadyEvent ready) {
    ready.getApplicationContext().getBean(Scheduler.class).start();
  }
}
