package io.stockade.query.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.eventstore.SettledHorizon;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The feed read by an account that may not list InnoDB's transactions (no {@code PROCESS}
 * privilege): it says so, and takes a hole as permanent only once the gap timeout has passed since
 * it first saw it, never at once. Nor may it see replication: the server, writable, is taken for
 * the primary.
 */
@SpringBootTest
class EventFeedWithoutProcessPrivilegeIntegrationTest {

  private static final Duration GAP_TIMEOUT = Duration.ofSeconds(2);

  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  @Value("${spring.datasource.url}")
  private String url;

  private String run;
  private String user;
  private JdbcTemplate restricted;
  private SettledHorizon horizon;
  private EventFeed feed;

  @BeforeEach
  void setUp() {
    run = UUID.randomUUID().toString().substring(0, 8);
    user = "feed_" + run;
    String database = jdbc.queryForObject("select database()", String.class);
    jdbc.execute("create user '" + user + "'@'%' identified by 'feed'");
    jdbc.execute("grant select on `" + database + "`.* to '" + user + "'@'%'");
    // Without the URL's options: creating the database if it does not exist is not permitted.
    String withoutOptions = url.contains("?") ? url.substring(0, url.indexOf('?')) : url;
    restricted = new JdbcTemplate(new DriverManagerDataSource(withoutOptions, user, "feed"));
    horizon = new SettledHorizon(restricted, "The event feed", GAP_TIMEOUT, Duration.ofMillis(100));
    feed = new EventFeed(restricted, horizon);
  }

  @AfterEach
  void tearDown() {
    horizon.destroy();
    jdbc.execute("drop user if exists '" + user + "'@'%'");
  }

  @Test
  void takesAWritableServerForThePrimaryWhenItMayNotSeeReplication() {
    // The account may not run SHOW ALL SLAVES STATUS (or SHOW REPLICA STATUS): a warning, no
    // refusal, since the server is not read-only.
    assertThat(PrimaryServer.refusal(restricted)).isEmpty();
  }

  @Test
  void passesARolledBackInsertOnlyOnceTheGapTimeoutHasPassed() {
    long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    String rolledBack = "O-rolled-back-" + run;
    long started = System.nanoTime();
    transaction.executeWithoutResult(
        status -> {
          Instant now = Instant.now();
          Events.append(
              eventStore,
              transaction,
              rolledBack,
              0,
              new StockReserved(
                  rolledBack,
                  "u-1",
                  List.of(new ReservationLine("sku-" + run, 1)),
                  now,
                  now.plusSeconds(900),
                  1,
                  1));
          status.setRollbackOnly();
        });
    String after = "sku-" + run;
    Events.append(eventStore, transaction, after, 0, new SkuRegistered(after, 10, 1));

    List<FeedEvent> seen = new ArrayList<>();
    FeedPage first = feed.read(head, 100);
    assertThat(first.events()).isEmpty();
    assertThat(first.next()).isEqualTo(head);

    long[] position = {head};
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              FeedPage page = feed.read(position[0], 100);
              seen.addAll(page.events());
              position[0] = page.next();
              return seen.stream().anyMatch(event -> event.aggregateId().equals(after));
            });

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(GAP_TIMEOUT);
    assertThat(horizon.evidence()).isEqualTo(SettledHorizon.Evidence.TIMEOUT);
    assertThat(horizon.freshLists()).isZero();
    assertThat(seen).extracting(FeedEvent::aggregateId).doesNotContain(rolledBack);
    assertThat(seen).extracting(FeedEvent::position).isSorted().doesNotHaveDuplicates();
  }
}
