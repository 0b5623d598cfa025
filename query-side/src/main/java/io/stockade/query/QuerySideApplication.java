package io.stockade.query;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Projections of the event stream into a MySQL read model, served over REST. */
@SpringBootApplication
@EnableScheduling
public class QuerySideApplication {

  public static void main(String[] args) {
    SpringApplication.run(QuerySideApplication.class, args);
  }

  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }
}
