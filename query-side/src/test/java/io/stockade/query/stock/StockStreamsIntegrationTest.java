package io.stockade.query.stock;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.stock.StockLevel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Live streams over the real read model, with subscribers arriving while a change is polled and
 * while the last subscriber leaves. The streams under test poll only when a test says so (their own
 * poller waits a day), and a hook in the read model's {@code find} lets a test act at the moment a
 * subscriber reads its SKU's numbers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StockStreamsIntegrationTest {

  @Autowired private JdbcTemplate jdbc;

  /** Run once on this thread, right after the read model's {@code find} has read a SKU. */
  private final ThreadLocal<Runnable> afterFind = new ThreadLocal<>();

  private StockLevels levels;
  private StockStreams streams;
  private ExecutorService leaving;
  private String run;

  @BeforeEach
  void setUp() {
    run = UUID.randomUUID().toString().substring(0, 8);
    levels =
        new StockLevels(jdbc, java.time.Clock.systemUTC()) {
          @Override
          Optional<StockLevel> find(String skuId) {
            Optional<StockLevel> level = super.find(skuId);
            Runnable hook = afterFind.get();
            afterFind.remove();
            if (hook != null) {
              hook.run();
            }
            return level;
          }
        };
    streams = new StockStreams(levels, Duration.ofDays(1), Duration.ofMinutes(30));
    leaving = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() {
    leaving.shutdownNow();
    streams.destroy();
    // These SKUs have no events: left in the read model, they would be drift to a reconciliation.
    String ofThisRun = "%-" + run + "%";
    jdbc.update("delete from stock_ledger where sku_id like ?", ofThisRun);
    jdbc.update("delete from stock_level where sku_id like ?", ofThisRun);
  }

  @Test
  void aChangePolledWhileASubscriberArrivesReachesItAtTheNextPoll() {
    String sku = "arriving-" + run;
    register(sku, 10);
    Recording first = new Recording();
    assertThat(streams.subscribe(sku, first)).isTrue();
    Recording second = new Recording();

    // Between the second subscriber's read of the numbers and its first message, a reservation
    // lands and a poll sends it to the streams it knows.
    afterFind.set(
        () -> {
          reserve(sku, 4);
          streams.poll();
        });
    assertThat(streams.subscribe(sku, second)).isTrue();
    streams.poll();

    assertThat(first.last().available()).isEqualTo(6);
    assertThat(second.last()).isEqualTo(first.last());
  }

  @Test
  void aSubscriberArrivingAsTheLastOneLeavesStillReceivesChanges() throws Exception {
    int rounds = 4000;
    String prefix = "leaving-" + run + "-";
    jdbc.batchUpdate(
        "insert into stock_level (sku_id, total, reserved, sold, registered_at, updated_at)"
            + " values (?, 10, 0, 0, utc_timestamp(6), utc_timestamp(6))",
        IntStream.range(0, rounds).mapToObj(round -> new Object[] {prefix + round}).toList());
    List<Recording> arrived = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      String sku = prefix + round;
      Recording last = new Recording();
      assertThat(streams.subscribe(sku, last)).isTrue();
      // The last subscriber leaves while a new one subscribes: in half the rounds as the
      // subscription starts, in the other half once it has read the numbers. The two threads spin
      // until both are there, then one of them waits a little more or less each round, so that
      // they cross at every point of either.
      CountDownLatch near = new CountDownLatch(1);
      AtomicInteger ready = new AtomicInteger();
      int skew = (round / 2) % 41 - 20;
      Future<?> left =
          leaving.submit(
              () -> {
                near.await();
                together(ready);
                spin(-skew);
                last.leave();
                return null;
              });
      Runnable meet =
          () -> {
            near.countDown();
            together(ready);
            spin(skew);
          };
      Recording arriving = new Recording();
      if (round % 2 == 0) {
        meet.run();
      } else {
        afterFind.set(meet);
      }
      assertThat(streams.subscribe(sku, arriving)).isTrue();
      left.get(1, TimeUnit.MINUTES);
      arrived.add(arriving);
    }

    jdbc.update("update stock_level set reserved = 1 where sku_id like ?", prefix + "%");
    streams.poll();

    List<Integer> missed =
        IntStream.range(0, rounds)
            .filter(round -> arrived.get(round).last().reserved() != 1)
            .boxed()
            .toList();
    assertThat(missed).as("rounds whose new subscriber missed the change").isEmpty();
  }

  @Test
  void anUnknownSkuHasNoStreamAndItsEmitterIsSentNothingLater() {
    String sku = "unknown-" + run;
    Recording emitter = new Recording();

    assertThat(streams.subscribe(sku, emitter)).isFalse();
    register(sku, 10);
    streams.poll();

    assertThat(emitter.received).isEmpty();
  }

  /** Spins until both threads are here (or gives up after a minute, so that a test never hangs). */
  private static void together(AtomicInteger ready) {
    ready.incrementAndGet();
    long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (ready.get() < 2) {
      if (System.nanoTime() > giveUp) {
        throw new IllegalStateException("the other thread never came");
      }
      Thread.onSpinWait();
    }
  }

  private static void spin(int times) {
    for (int i = 0; i < times; i++) {
      Thread.onSpinWait();
    }
  }

  private void register(String sku, long units) {
    new StockRows(jdbc)
        .apply(
            new StockChanges.Change(
                sku,
                UUID.randomUUID().toString(),
                Instant.now(),
                "SkuRegistered",
                sku,
                units,
                0,
                0),
            StockChanges.Settings.registration(null));
  }

  private void reserve(String sku, long units) {
    new StockRows(jdbc)
        .apply(
            new StockChanges.Change(
                sku,
                UUID.randomUUID().toString(),
                Instant.now(),
                "StockReserved",
                "O-" + run,
                0,
                units,
                0),
            StockChanges.Settings.NONE);
  }

  /** An emitter that keeps what it is sent, and leaves as the container ends a stream. */
  private static final class Recording extends SseEmitter {

    private final List<StockLevel> received = new CopyOnWriteArrayList<>();
    private volatile Runnable completion;

    @Override
    public void send(SseEventBuilder event) {
      for (DataWithMediaType data : event.build()) {
        if (data.getData() instanceof StockLevel level) {
          received.add(level);
        }
      }
    }

    @Override
    public void onCompletion(Runnable callback) {
      completion = callback;
      super.onCompletion(callback);
    }

    void leave() {
      completion.run();
    }

    StockLevel last() {
      assertThat(received).isNotEmpty();
      return received.get(received.size() - 1);
    }
  }
}
