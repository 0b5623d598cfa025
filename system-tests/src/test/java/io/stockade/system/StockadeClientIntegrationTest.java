package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.stockade.client.ClientSettings;
import io.stockade.client.CommandClient;
import io.stockade.client.Confirmation;
import io.stockade.client.FeedEvent;
import io.stockade.client.ProblemCode;
import io.stockade.client.QueryClient;
import io.stockade.client.RegisteredSku;
import io.stockade.client.ReservationLine;
import io.stockade.client.ReservationOutcome;
import io.stockade.client.ReservationRequest;
import io.stockade.client.RetryPolicy;
import io.stockade.client.SkuRegistration;
import io.stockade.client.StockadeClientException;
import io.stockade.client.StockadeProblemException;
import io.stockade.client.feed.FeedConsumer;
import io.stockade.client.feed.FilePositionStore;
import io.stockade.platform.testing.TestTokens;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client ({@code stockade-client}) against a real command side and query side, launched
 * from their packaged jars on a Redis and a database of their own ({@value
 * SharedClientSystem#DATABASE}): commands and their problems as typed exceptions, the read models,
 * the event feed consumed through a position file across a restart of the consumer, and a real 429
 * retried after its {@code Retry-After} with the same reservation id. {@link
 * ClientReadsIntegrationTest} covers the other endpoints.
 */
@ExtendWith(SharedClientSystem.class)
class StockadeClientIntegrationTest {

  private static ClientSystem system;
  private static CommandClient admin;
  private static CommandClient client;
  private static QueryClient reader;

  @BeforeAll
  static void clients() {
    system = SharedClientSystem.system();
    admin = system.commands(RetryPolicy.DEFAULT, "admin");
    client = system.commands(RetryPolicy.DEFAULT, "client");
    reader = system.queries("reader");
  }

  static String id(String name) {
    return name + "-" + SharedClientSystem.RUN;
  }

  static ConditionFactory eventually() {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptionsMatching(
            e -> e instanceof StockadeProblemException problem && problem.status() == 404);
  }

  static StockadeProblemException problemOf(ThrowingCallable call) {
    List<StockadeProblemException> thrown = new ArrayList<>();
    assertThatThrownBy(call).isInstanceOfSatisfying(StockadeProblemException.class, thrown::add);
    return thrown.get(0);
  }

  @Test
  void reservesRefusesWithATypedProblemConfirmsAndReadsTheStatus() {
    String sku = id("sku-a");
    RegisteredSku registered = admin.registerSku(sku, SkuRegistration.of(3).withPerUserLimit(5));
    assertThat(registered.skuId()).isEqualTo(sku);
    assertThat(registered.totalStock()).isEqualTo(3);
    assertThat(admin.registerSku(sku, SkuRegistration.of(3).withPerUserLimit(5)))
        .as("an identical repeat")
        .isEqualTo(registered);

    ReservationRequest order =
        ReservationRequest.of(id("R-1"), id("u-1"), new ReservationLine(sku, 2))
            .withHoldSeconds(900L);
    ReservationOutcome reserved = client.reserve(order);
    assertThat(reserved.status()).isEqualTo("RESERVED");
    assertThat(reserved.queued()).isFalse();
    assertThat(reserved.lines()).containsExactly(new ReservationLine(sku, 2));
    assertThat(reserved.expiresAt()).isNotNull();
    assertThat(reserved.created()).as("201: reserved by this request").isTrue();
    ReservationOutcome repeated = client.reserve(order);
    assertThat(repeated.created()).as("200: a retry with the same id").isFalse();
    assertThat(repeated)
        .as("a retry with the same id")
        .usingRecursiveComparison()
        .ignoringFields("created")
        .isEqualTo(reserved);

    StockadeProblemException refused =
        problemOf(
            () ->
                client.reserve(
                    ReservationRequest.of(id("R-2"), id("u-2"), new ReservationLine(sku, 2))));
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.problemCode()).isEqualTo(ProblemCode.INSUFFICIENT_STOCK);
    assertThat(refused.type()).isEqualTo("https://stockade.io/problems/insufficient-stock");
    assertThat(refused.title()).isNotBlank();
    assertThat(refused.detail()).isNotBlank();
    assertThat(refused.extension("skuId")).contains(sku);
    assertThat(refused.extensions()).containsEntry("lineIndex", 0);

    Confirmation confirmed = client.confirm(id("R-1"));
    assertThat(confirmed.status()).isEqualTo("CONFIRMED");
    assertThat(confirmed.lines()).containsExactly(new ReservationLine(sku, 2));
    assertThat(client.confirm(id("R-1"))).as("a repeat").isEqualTo(confirmed);

    StockadeProblemException notActive = problemOf(() -> client.release(id("R-1"), "CANCELLED"));
    assertThat(notActive.problemCode()).isEqualTo(ProblemCode.RESERVATION_NOT_ACTIVE);
    assertThat(notActive.extension("reservationStatus")).contains("CONFIRMED");
    assertThat(problemOf(() -> client.confirm(id("R-none"))).problemCode())
        .isEqualTo(ProblemCode.UNKNOWN_RESERVATION);
    assertThat(problemOf(() -> reader.reservation(id("R-none"))).status()).isEqualTo(404);
    StockadeProblemException forbidden =
        problemOf(() -> client.registerSku(id("sku-x"), SkuRegistration.of(1)));
    assertThat(forbidden.problemCode()).isEqualTo(ProblemCode.FORBIDDEN);

    eventually()
        .untilAsserted(
            () -> {
              var status = reader.reservation(id("R-1"));
              assertThat(status.status()).isEqualTo("CONFIRMED");
              assertThat(status.userId()).isEqualTo(id("u-1"));
              assertThat(status.confirmedLines()).containsExactly(new ReservationLine(sku, 2));
            });
    eventually()
        .untilAsserted(
            () -> {
              var stock = reader.stock(sku);
              assertThat(List.of(stock.total(), stock.available(), stock.reserved(), stock.sold()))
                  .containsExactly(3L, 1L, 0L, 2L);
              assertThat(stock.perUserLimit()).isEqualTo(5);
              assertThat(stock.sale().state()).isEqualTo("OPEN");
            });
    assertThat(reader.reservationAudit(id("R-1")))
        .extracting(event -> event.type())
        .containsExactly("StockReserved", "StockConfirmed");
  }

  @Test
  void consumesTheFeedThroughAPositionFileAcrossARestartOfTheConsumer(@TempDir Path dir) {
    Path file = dir.resolve("feed.position");
    String sku = id("sku-feed");
    admin.registerSku(sku, SkuRegistration.of(100));
    client.reserve(ReservationRequest.of(id("F-1"), id("u-f1"), new ReservationLine(sku, 1)));
    client.confirm(id("F-1"));

    // The consumer runs on a thread of its own, as in an order service, and is stopped there.
    List<FeedEvent> first = new CopyOnWriteArrayList<>();
    FeedConsumer before = new FeedConsumer(reader, new FilePositionStore(file), first::add, 7);
    Thread running = start(before);
    eventually().until(() -> seen(first, "StockConfirmed", id("F-1")));
    stop(running);
    long stored = new FilePositionStore(file).load();
    assertThat(stored).isGreaterThanOrEqualTo(first.get(first.size() - 1).position());

    // A failing handler leaves the position where it was: the event comes again.
    client.reserve(ReservationRequest.of(id("F-2"), id("u-f2"), new ReservationLine(sku, 1)));
    List<FeedEvent> failed = new CopyOnWriteArrayList<>();
    FeedConsumer failing =
        new FeedConsumer(
            reader,
            new FilePositionStore(file),
            event -> {
              failed.add(event);
              throw new IllegalStateException("the order service's database is down");
            },
            7);
    eventually()
        .until(
            () -> {
              try {
                failing.poll();
                return false;
              } catch (FeedConsumer.FeedHandlingException expected) {
                return true;
              }
            });
    assertThat(new FilePositionStore(file).load()).isEqualTo(stored);

    client.release(id("F-2"));
    List<FeedEvent> second = new CopyOnWriteArrayList<>();
    FeedConsumer after = new FeedConsumer(reader, new FilePositionStore(file), second::add, 7);
    running = start(after);
    eventually().until(() -> seen(second, "StockReleased", id("F-2")));
    stop(running);

    assertThat(second.get(0))
        .as("the event the failing handler did not finish")
        .isEqualTo(failed.get(0));
    assertThat(second).allSatisfy(event -> assertThat(event.position()).isGreaterThan(stored));
    List<FeedEvent> both = new ArrayList<>(first);
    both.addAll(second);
    long last = both.get(both.size() - 1).position();
    assertThat(both).as("every event once, in order").isEqualTo(feedUpTo(last));
  }

  /** Runs the consumer on a thread until the thread is interrupted. */
  private static Thread start(FeedConsumer consumer) {
    Thread thread =
        new Thread(
            () -> {
              try {
                consumer.run(Duration.ofMillis(100));
              } catch (InterruptedException | StockadeClientException stopped) {
                // Stopped by the test: a call cut by the interrupt ends it too.
              }
            },
            "feed-consumer");
    thread.start();
    return thread;
  }

  /** Interrupts it and waits until it has ended: the consumer stopped, as a service stops. */
  private static void stop(Thread running) {
    running.interrupt();
    eventually().until(() -> !running.isAlive());
  }

  private static boolean seen(List<FeedEvent> events, String type, String aggregateId) {
    return events.stream()
        .anyMatch(e -> e.type().equals(type) && e.aggregateId().equals(aggregateId));
  }

  /** The feed from its beginning up to {@code last}, read page by page. */
  private static List<FeedEvent> feedUpTo(long last) {
    List<FeedEvent> events = new ArrayList<>();
    long after = 0;
    while (after < last) {
      var page = reader.events(after, 1000);
      page.events().stream().filter(e -> e.position() <= last).forEach(events::add);
      after = page.next();
    }
    return events;
  }

  @Test
  void retriesARealRateLimitAfterItsRetryAfterWithTheSameReservationId() {
    String sku = id("sku-rate");
    String user = id("u-rate");
    admin.registerSku(sku, SkuRegistration.of(100));
    for (int i = 0; i < ClientSystem.USER_BURST; i++) {
      client.reserve(ReservationRequest.of(id("Q-burst-" + i), user, new ReservationLine(sku, 1)));
    }
    CommandClient once = system.commands(RetryPolicy.NONE, "client");
    StockadeProblemException limited =
        problemOf(
            () ->
                once.reserve(ReservationRequest.of(id("Q-1"), user, new ReservationLine(sku, 1))));
    assertThat(limited.status()).isEqualTo(429);
    assertThat(limited.problemCode()).isEqualTo(ProblemCode.RATE_LIMITED);
    assertThat(limited.extension("limit")).contains("user");
    assertThat(limited.retryAfter()).hasValueSatisfying(wait -> assertThat(wait).isPositive());

    List<String> retries = new CopyOnWriteArrayList<>();
    CommandClient patient =
        system.commands(
            ClientSettings.bearer(TestTokens.withRoles("client"))
                .withRetries(new RetryPolicy(4, Duration.ofSeconds(30)))
                .withRetryListener(
                    (method, uri, attempt, status, code, wait) ->
                        retries.add(status + " " + code)));
    ReservationOutcome outcome =
        patient.reserve(ReservationRequest.of(id("Q-1"), user, new ReservationLine(sku, 1)));

    assertThat(outcome.status()).isEqualTo("RESERVED");
    assertThat(outcome.reservationId()).isEqualTo(id("Q-1"));
    assertThat(retries).isNotEmpty().containsOnly("429 rate-limited");
    eventually()
        .untilAsserted(
            () ->
                assertThat(reader.reservationAudit(id("Q-1")))
                    .extracting(event -> event.type())
                    .containsExactly("StockReserved"));
    eventually()
        .untilAsserted(
            () -> assertThat(reader.stock(sku).reserved()).isEqualTo(ClientSystem.USER_BURST + 1L));
  }
}
