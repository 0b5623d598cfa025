package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The gate under real concurrency against a real Redis: exact, never negative, all or nothing. */
class RedisAdmissionGateConcurrencyTest {

  private static final Duration HOLD = Duration.ofMinutes(15);

  private final StringRedisTemplate redis = TestRedis.shared();
  private final WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private ExecutorService pool;

  @BeforeEach
  void setUp() {
    pool = Executors.newFixedThreadPool(50);
  }

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  @Test
  void admitsExactlyTheStockAndNeverGoesNegative() throws Exception {
    String sku = "hot-" + run;
    gate.register(sku, 100, null, 1);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
    AtomicLong samples = new AtomicLong();
    Thread sampler =
        new Thread(
            () -> {
              while (running.get()) {
                Object available =
                    redis.opsForHash().get(TestRedis.LAYOUT.counters(sku), "available");
                lowest.accumulateAndGet(Long.parseLong(available.toString()), Math::min);
                samples.incrementAndGet();
              }
            });
    sampler.start();

    List<AdmissionDecision> decisions =
        concurrently(
            1000, i -> () -> gate.reserve(admission("O-" + run + "-" + i, "u-" + i, line(sku, 1))));
    running.set(false);
    sampler.join();

    assertThat(decisions).filteredOn(AdmissionDecision.Admitted.class::isInstance).hasSize(100);
    assertThat(decisions).filteredOn(AdmissionDecision.Insufficient.class::isInstance).hasSize(900);
    assertThat(counters(sku))
        .containsEntry("available", "0")
        .containsEntry("reserved", "100")
        .containsEntry("sold", "0");
    assertThat(samples.get()).isPositive();
    assertThat(lowest.get()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void overlappingMultiSkuOrdersAreAllOrNothing() throws Exception {
    long seed = Long.getLong("stockade.test.seed", System.nanoTime());
    System.out.println("overlappingMultiSkuOrdersAreAllOrNothing seed=" + seed);
    Random random = new Random(seed);
    Map<String, Integer> initial = new LinkedHashMap<>();
    for (int i = 0; i < 8; i++) {
      String sku = "multi-" + run + "-" + i;
      int stock = 20 + random.nextInt(41);
      initial.put(sku, stock);
      gate.register(sku, stock, null, 1);
    }
    List<String> skus = new ArrayList<>(initial.keySet());
    List<List<ReservationLine>> orders = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      List<String> shuffled = new ArrayList<>(skus);
      java.util.Collections.shuffle(shuffled, random);
      List<ReservationLine> lines = new ArrayList<>();
      for (String sku : shuffled.subList(0, 1 + random.nextInt(4))) {
        lines.add(line(sku, 1 + random.nextInt(3)));
      }
      orders.add(lines);
    }

    List<AdmissionDecision> decisions =
        concurrently(
            orders.size(),
            i ->
                () ->
                    gate.reserve(
                        admission(
                            "O-" + run + "-" + i,
                            "u-" + (i % 17),
                            orders.get(i).toArray(ReservationLine[]::new))));

    Map<String, Integer> taken = new LinkedHashMap<>();
    skus.forEach(sku -> taken.put(sku, 0));
    for (int i = 0; i < orders.size(); i++) {
      String intent = TestRedis.PARTITION.intent("O-" + run + "-" + i);
      if (decisions.get(i) instanceof AdmissionDecision.Admitted) {
        orders.get(i).forEach(line -> taken.merge(line.skuId(), line.quantity(), Integer::sum));
        assertThat(redis.opsForHash().get(intent, "state")).isEqualTo("RESERVED");
      } else {
        assertThat(decisions.get(i)).isInstanceOf(AdmissionDecision.Insufficient.class);
        assertThat(redis.hasKey(intent)).as("refused order %d left an intent", i).isFalse();
      }
    }
    assertThat(decisions).filteredOn(AdmissionDecision.Admitted.class::isInstance).isNotEmpty();
    for (String sku : skus) {
      Map<Object, Object> counters = counters(sku);
      long available = Long.parseLong(counters.get("available").toString());
      long reserved = Long.parseLong(counters.get("reserved").toString());
      assertThat(available).as("available of %s", sku).isGreaterThanOrEqualTo(0);
      assertThat(initial.get(sku) - available)
          .as("taken from %s", sku)
          .isEqualTo(taken.get(sku).longValue());
      assertThat(reserved).as("reserved of %s", sku).isEqualTo(taken.get(sku).longValue());
    }
  }

  @Test
  void concurrentRetriesOfOneReservationTakeStockOnce() throws Exception {
    String sku = "retry-" + run;
    gate.register(sku, 10, null, 1);
    Admission admission = admission("O-" + run, "u-1", line(sku, 3));

    List<AdmissionDecision> decisions = concurrently(50, i -> () -> gate.reserve(admission));

    assertThat(decisions).filteredOn(AdmissionDecision.Admitted.class::isInstance).hasSize(1);
    assertThat(decisions).filteredOn(AdmissionDecision.Duplicate.class::isInstance).hasSize(49);
    AdmissionDecision.Admitted admitted =
        (AdmissionDecision.Admitted)
            decisions.stream()
                .filter(AdmissionDecision.Admitted.class::isInstance)
                .findFirst()
                .orElseThrow();
    assertThat(decisions)
        .filteredOn(AdmissionDecision.Duplicate.class::isInstance)
        .allSatisfy(
            decision ->
                assertThat(decision)
                    .isEqualTo(
                        new AdmissionDecision.Duplicate(
                            admitted.sequence(),
                            admitted.admittedAt(),
                            admitted.expiresAt(),
                            "RESERVED",
                            true,
                            admitted.gateEpoch())));
    assertThat(counters(sku)).containsEntry("available", "7").containsEntry("reserved", "3");
  }

  @Test
  void oneUserCannotHoldMoreThanTheLimitUnderConcurrency() throws Exception {
    String sku = "limited-" + run;
    gate.register(sku, 1000, 2, 1);

    List<AdmissionDecision> decisions =
        concurrently(
            100,
            i -> () -> gate.reserve(admission("O-" + run + "-" + i, "u-greedy", line(sku, 1))));

    assertThat(decisions).filteredOn(AdmissionDecision.Admitted.class::isInstance).hasSize(2);
    assertThat(decisions)
        .filteredOn(AdmissionDecision.LimitExceeded.class::isInstance)
        .hasSize(98)
        .allSatisfy(
            decision ->
                assertThat(decision).isEqualTo(new AdmissionDecision.LimitExceeded(sku, 0, 2, 2)));
    assertThat(counters(sku)).containsEntry("available", "998").containsEntry("reserved", "2");
    assertThat(redis.opsForHash().get(TestRedis.LAYOUT.holders(sku), "u-greedy")).isEqualTo("2");
  }

  private interface Task {
    Callable<AdmissionDecision> call(int index);
  }

  /** Runs {@code count} calls at once (released together) and returns them in index order. */
  private List<AdmissionDecision> concurrently(int count, Task task) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<AdmissionDecision>> futures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Callable<AdmissionDecision> call = task.call(i);
      futures.add(
          pool.submit(
              () -> {
                start.await();
                return call.call();
              }));
    }
    start.countDown();
    List<AdmissionDecision> decisions = new ArrayList<>();
    for (Future<AdmissionDecision> future : futures) {
      decisions.add(future.get(60, TimeUnit.SECONDS));
    }
    return decisions;
  }

  private static Admission admission(String id, String user, ReservationLine... lines) {
    return new Admission(id, user, List.of(lines), HOLD, Instant.parse("2026-11-30T10:00:00Z"));
  }

  private static ReservationLine line(String sku, int quantity) {
    return new ReservationLine(sku, quantity);
  }

  private Map<Object, Object> counters(String sku) {
    return redis.opsForHash().entries(TestRedis.LAYOUT.counters(sku));
  }
}
