package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.ReservationTransitions.Withdrawal;
import io.stockade.localinfra.EmbeddedRedisCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The gate on a real Redis Cluster of three masters, in the layout a cluster gets by default (16
 * partitions) with SKUs placed by the part of their id before the first dot: reservations of one
 * partition's SKUs, and reservations across partitions on different masters, all or nothing.
 */
class RedisAdmissionGateClusterTest {

  private static final Duration HOLD = Duration.ofMinutes(15);
  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
  private static final GateLayout LAYOUT = new GateLayout(16, Pattern.compile("^([^.]+)\\."));

  private static EmbeddedRedisCluster cluster;
  private static StringRedisTemplate redis;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final WholeGate gate = TestRedis.gate(redis, LAYOUT, Duration.ofHours(24));

  /** The gate's moves between buckets, as this instance runs them. */
  private final BucketMoves moves = TestRedis.moves(redis, LAYOUT);

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedRedisCluster.start(Path.of("target", "gate-cluster-" + UUID.randomUUID()), 3);
    redis = TestRedis.clusterTemplate(cluster.nodes(), TestRedis.TIMEOUT);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void partitionsAreSpreadOverEveryMaster() {
    Map<Integer, Long> perMaster =
        LAYOUT.partitions().stream()
            .collect(
                Collectors.groupingBy(
                    partition -> cluster.portOfSlot(partition.slot()), Collectors.counting()));

    assertThat(perMaster.keySet()).containsExactlyInAnyOrderElementsOf(cluster.ports());
    assertThat(perMaster.values()).allSatisfy(count -> assertThat(count).isBetween(5L, 6L));
  }

  @Test
  void skusOfOneShopShareAPartitionAndOneIntent() {
    String tee = "shop-" + run + ".tee";
    String mug = "shop-" + run + ".mug";
    gate.register(tee, 5, null, 1);
    gate.register(mug, 5, null, 1);
    GateLayout.Partition partition = LAYOUT.of(tee);

    AdmissionDecision decision =
        gate.reserve(admission("O-" + run, "u-1", line(tee, 1), line(mug, 2)));

    assertThat(LAYOUT.of(mug)).isEqualTo(partition);
    assertThat(decision).isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(redis.opsForHash().get(partition.intent("O-" + run), "lines"))
        .isEqualTo(tee + " 1 " + mug + " 2");
    assertThat(intentsOf("O-" + run)).hasSize(1);
  }

  @Test
  void aReservationAcrossMastersIsRefusedWholeWhenItsLastPartIsShort() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, LAYOUT, run + "-refused");
    gate.register(skus.get(0), 5, 3, 1);
    gate.register(skus.get(1), 5, null, 1);
    gate.register(skus.get(2), 1, null, 1);
    Map<String, Map<Object, Object>> before = countersOf(skus);

    AdmissionDecision decision =
        gate.reserve(
            admission(
                "O-" + run,
                "u-1",
                line(skus.get(2), 2),
                line(skus.get(0), 2),
                line(skus.get(1), 2)));

    assertThat(decision).isEqualTo(new AdmissionDecision.Insufficient(skus.get(2), 0));
    assertThat(countersOf(skus)).isEqualTo(before);
    // The decision log says so: the parts taken before the short one, given back (W); the short
    // part refused (I).
    assertThat(decisionsOf("O-" + run))
        .containsExactlyInAnyOrder(
            LAYOUT.of(skus.get(0)).tag() + " A " + skus.get(0) + " 2 3",
            LAYOUT.of(skus.get(0)).tag() + " W " + skus.get(0) + " 2 5",
            LAYOUT.of(skus.get(1)).tag() + " A " + skus.get(1) + " 2 3",
            LAYOUT.of(skus.get(1)).tag() + " W " + skus.get(1) + " 2 5",
            LAYOUT.of(skus.get(2)).tag() + " I " + skus.get(2) + " 2 1");
    assertThat(intentsOf("O-" + run)).isEmpty();
    assertThat(pendingOf("O-" + run)).isEmpty();
    assertThat(redis.opsForHash().get(LAYOUT.holders(skus.get(0)), "u-1")).isNull();
  }

  @Test
  void aReservationAcrossMastersTakesEveryPartOnceAndEndsInEveryPart() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, LAYOUT, run + "-taken");
    for (String sku : skus) {
      gate.register(sku, 5, null, 1);
    }
    List<ReservationLine> lines =
        List.of(line(skus.get(0), 1), line(skus.get(1), 2), line(skus.get(2), 3));
    Admission admission = new Admission("O-" + run, "u-1", lines, HOLD, NOW);

    AdmissionDecision.Admitted admitted = (AdmissionDecision.Admitted) gate.reserve(admission);
    AdmissionDecision.Duplicate retry = (AdmissionDecision.Duplicate) gate.reserve(admission);

    assertThat(retry.sequence()).isEqualTo(admitted.sequence());
    assertThat(retry.recording()).as("not recorded yet: the retry records it too").isTrue();
    assertThat(intentsOf("O-" + run).values())
        .extracting(intent -> intent.get("sequence"))
        .containsOnly(String.valueOf(admitted.sequence()))
        .hasSize(3);
    assertThat(pendingOf("O-" + run)).hasSize(3);
    assertThat(available(skus)).containsExactly(4L, 3L, 2L);

    gate.recorded("O-" + run, admitted.admission(), lines);
    assertThat(pendingOf("O-" + run)).isEmpty();
    assertThat(gate.confirm("O-" + run, admitted.admission(), lines)).isEqualTo(Transition.DONE);
    assertThat(gate.confirm("O-" + run, admitted.admission(), lines))
        .isEqualTo(Transition.ALREADY_DONE);
    assertThat(gate.release("O-" + run, admitted.admission(), lines, "CANCELLED"))
        .isEqualTo(Transition.NOT_ACTIVE);
    assertThat(countersOf(skus).values())
        .extracting(counters -> counters.get("sold"))
        .containsExactly("1", "2", "3");
  }

  @Test
  void aReleaseAcrossMastersGivesEveryPartBack() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, LAYOUT, run + "-released");
    for (String sku : skus) {
      gate.register(sku, 5, 2, 1);
    }
    List<ReservationLine> lines = List.of(line(skus.get(0), 2), line(skus.get(2), 1));
    AdmissionDecision.Admitted admitted =
        (AdmissionDecision.Admitted)
            gate.reserve(new Admission("O-" + run, "u-1", lines, HOLD, NOW));

    assertThat(gate.release("O-" + run, admitted.admission(), lines, "EXPIRED"))
        .isEqualTo(Transition.DONE);

    assertThat(available(skus)).containsExactly(5L, 5L, 5L);
    assertThat(redis.opsForHash().get(LAYOUT.holders(skus.get(0)), "u-1")).isNull();
    assertThat(
            gate.reserve(new Admission("O-" + run + "-2", "u-1", lines, HOLD, NOW))
                .getClass()
                .getSimpleName())
        .as("the allowance came back with the units")
        .isEqualTo("Admitted");
  }

  @Test
  void aWithdrawalAcrossMastersLeavesNothingHeld() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, LAYOUT, run + "-withdrawn");
    for (String sku : skus) {
      gate.register(sku, 5, null, 1);
    }
    List<ReservationLine> lines = List.of(line(skus.get(1), 2), line(skus.get(2), 2));
    AdmissionDecision.Admitted admitted =
        (AdmissionDecision.Admitted)
            gate.reserve(new Admission("O-" + run, "u-1", lines, HOLD, NOW));

    assertThat(gate.withdraw("O-" + run, admitted.admission(), lines))
        .isEqualTo(Withdrawal.WITHDRAWN);

    assertThat(available(skus)).containsExactly(5L, 5L, 5L);
    assertThat(intentsOf("O-" + run)).isEmpty();
    assertThat(pendingOf("O-" + run)).isEmpty();
  }

  /**
   * Many threads reserve random mixes of three SKUs on three masters: each SKU's reserved units are
   * exactly what the admitted reservations hold of it, never more than its stock, and a refused
   * reservation leaves no part behind.
   */
  @Test
  void underConcurrencyEveryReservationIsWholeOrAbsent() throws Exception {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, LAYOUT, run + "-contended");
    long stock = 40;
    for (String sku : skus) {
      gate.register(sku, stock, null, 1);
    }
    Map<String, List<ReservationLine>> admitted = new ConcurrentHashMap<>();
    Set<String> refused = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(24);
    CountDownLatch start = new CountDownLatch(1);
    List<Callable<Void>> tasks = new ArrayList<>();
    for (int t = 0; t < 24; t++) {
      int thread = t;
      tasks.add(
          () -> {
            Random random = new Random(thread);
            start.await();
            for (int i = 0; i < 25; i++) {
              List<String> chosen = new ArrayList<>(skus);
              Collections.shuffle(chosen, random);
              List<ReservationLine> lines = new ArrayList<>();
              for (String sku : chosen.subList(0, 1 + random.nextInt(3))) {
                lines.add(line(sku, 1 + random.nextInt(3)));
              }
              String id = "O-" + run + "-" + thread + "-" + i;
              AdmissionDecision decision =
                  gate.reserve(new Admission(id, "u-" + thread, lines, HOLD, NOW));
              if (decision instanceof AdmissionDecision.Admitted) {
                admitted.put(id, lines);
              } else {
                assertThat(decision).isInstanceOf(AdmissionDecision.Insufficient.class);
                refused.add(id);
              }
            }
            return null;
          });
    }
    List<Future<Void>> futures = new ArrayList<>();
    for (Callable<Void> task : tasks) {
      futures.add(pool.submit(task));
    }
    start.countDown();
    for (Future<Void> future : futures) {
      future.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();

    Map<String, Long> held = new HashMap<>();
    admitted
        .values()
        .forEach(
            lines -> lines.forEach(l -> held.merge(l.skuId(), (long) l.quantity(), Long::sum)));
    for (String sku : skus) {
      Map<Object, Object> counters = redis.opsForHash().entries(LAYOUT.counters(sku));
      long reserved = Long.parseLong(counters.get("reserved").toString());
      long available = Long.parseLong(counters.get("available").toString());
      assertThat(reserved).as("reserved of %s", sku).isEqualTo(held.getOrDefault(sku, 0L));
      assertThat(available + reserved).as("stock of %s", sku).isEqualTo(stock);
      assertThat(available).as("available of %s", sku).isNotNegative();
    }
    assertThat(refused).as("the stock ran out").isNotEmpty();
    for (String id : refused) {
      assertThat(intentsOf(id)).as("parts left by refused %s", id).isEmpty();
    }
    assertThat(admitted.keySet())
        .allSatisfy(
            id ->
                assertThat(intentsOf(id))
                    .hasSize(partitionsOf(admitted.get(id)))
                    .allSatisfy((key, intent) -> assertThat(intent).containsKey("sequence")));
  }

  @Test
  void aHotSkuSplitIntoBucketsHasABucketOnEveryMaster() {
    String hot = "hot-" + run;
    gate.register(hot, 100, null, 3);

    List<GateLayout.Partition> buckets = bucketsOf(hot);
    assertThat(buckets.stream().map(p -> cluster.portOfSlot(p.slot())).distinct())
        .containsExactlyInAnyOrderElementsOf(cluster.ports());
    assertThat(buckets)
        .extracting(p -> redis.opsForHash().get(p.counters(hot), "available"))
        .containsExactly("34", "33", "33");
  }

  @Test
  void aReservationShortInItsUsersBucketGathersUnitsFromTheOthers() {
    String hot = "gather-" + run;
    gate.register(hot, 9, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    GateLayout.Partition own = buckets.get(GateLayout.bucketOf("u-1", 3));

    AdmissionDecision decision = gate.reserve(admission("O-" + run, "u-1", line(hot, 8)));

    assertThat(decision).isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(decisionsOf("O-" + run))
        .as("one decision: the refusal before the units were gathered was tentative")
        .containsExactly(own.tag() + " A " + hot + " 8 0");
    assertThat(redis.opsForHash().get(own.intent("O-" + run), "lines")).isEqualTo(hot + " 8");
    assertThat(intentsOf("O-" + run)).hasSize(1);
    assertThat(bucketTotals(hot, buckets))
        .containsEntry("available", 1L)
        .containsEntry("reserved", 8L);
    assertThat(bucketTotals(hot, buckets)).containsEntry("outgoing", 0L);
    assertThat(gate.reserve(admission("O-" + run + "-2", "u-2", line(hot, 2))))
        .as("one unit left in all the buckets together")
        .isEqualTo(new AdmissionDecision.Insufficient(hot, 0));
    assertThat(decisionsOf("O-" + run + "-2"))
        .as("the final refusal, once")
        .hasSize(1)
        .allMatch(entry -> entry.contains(" I " + hot + " 2 "));
    assertThat(
            gate.release(
                "O-" + run,
                ((AdmissionDecision.Admitted) decision).admission(),
                List.of(line(hot, 8)),
                "CANCELLED"))
        .isEqualTo(Transition.DONE);
    assertThat(bucketTotals(hot, buckets))
        .containsEntry("available", 9L)
        .containsEntry("reserved", 0L);
  }

  @Test
  void theLimitOfAUserIsCheckedInTheUsersBucket() {
    String hot = "limited-" + run;
    gate.register(hot, 30, 2, 3);

    assertThat(gate.reserve(admission("O-" + run + "-1", "u-1", line(hot, 1))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(gate.reserve(admission("O-" + run + "-2", "u-1", line(hot, 1))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(gate.reserve(admission("O-" + run + "-3", "u-1", line(hot, 1))))
        .isEqualTo(new AdmissionDecision.LimitExceeded(hot, 0, 2, 2));
  }

  @Test
  void aMoveBetweenBucketsLeftHalfwayIsFinished() {
    String hot = "halfway-" + run;
    gate.register(hot, 30, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    GateLayout.Partition source = buckets.get(1);
    GateLayout.Partition target = buckets.get(2);
    // Begun by a request that then died.
    String member = moves.moveOut(session(), hot, source, target, 4);
    assertThat(member).endsWith(" 4");
    assertThat(bucketTotals(hot, buckets))
        .as("the units on their way are available nowhere")
        .containsEntry("available", 26L)
        .containsEntry("outgoing", 4L);

    assertThat(gate.settleTransfers(Duration.ZERO)).isEqualTo(1);

    assertThat(bucketTotals(hot, buckets))
        .containsEntry("available", 30L)
        .containsEntry("outgoing", 0L);
    assertThat(redis.opsForHash().get(target.counters(hot), "available")).isEqualTo("14");
    assertThat(redis.opsForZSet().size(source.transfers())).isZero();
    assertThat(gate.settleTransfers(Duration.ZERO)).as("finished once").isZero();
    assertThat(bucketTotals(hot, buckets)).containsEntry("available", 30L);
  }

  @Test
  void aMoveOutOfAnEmptyBucketLeavesNothingBehind() {
    String hot = "empty-" + run;
    gate.register(hot, 2, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    GateLayout.Partition empty = buckets.get(2);
    assertThat(redis.opsForHash().get(empty.counters(hot), "available")).isEqualTo("0");

    assertThat(moves.moveOut(session(), hot, empty, buckets.get(0), 1)).isNull();

    assertThat(redis.opsForHash().values(buckets.get(0).transfersIn()))
        .noneMatch(state -> state.toString().contains(" " + hot + " "));
    assertThat(movesOf(hot, moves.movesLeft(session(), empty, Duration.ZERO))).isEmpty();
  }

  /**
   * The sweepers of two instances both read a move left halfway; one finishes it (into the target,
   * done, forgotten), then the other runs its steps of the move it read: the units arrive once.
   */
  @Test
  void aMoveReadByTwoSettlersArrivesOnce() {
    String hot = "two-settlers-" + run;
    gate.register(hot, 30, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    GateLayout.Partition source = buckets.get(0);
    GateLayout.Partition target = buckets.get(1);
    String member = moves.moveOut(session(), hot, source, target, 5);
    BucketMoves second = TestRedis.moves(redis, LAYOUT);

    List<String> readByFirst = movesOf(hot, moves.movesLeft(session(), source, Duration.ZERO));
    List<String> readBySecond = movesOf(hot, second.movesLeft(session(), source, Duration.ZERO));
    assertThat(readByFirst).containsExactly(member);
    assertThat(readBySecond).containsExactly(member);
    readBySecond.forEach(move -> second.settle(session(), source, move));
    readByFirst.forEach(move -> moves.settle(session(), source, move));

    assertThat(redis.opsForHash().get(target.counters(hot), "available"))
        .as("10 there, 5 moved in once")
        .isEqualTo("15");
    assertThat(bucketTotals(hot, buckets))
        .containsEntry("available", 30L)
        .containsEntry("outgoing", 0L);
  }

  /**
   * A request stalls after it took units out of a bucket, for longer than the sweeper's bound: the
   * sweeper of another instance finishes the move, then the request goes on with the steps it had
   * left (into the target first). The units arrive once, however often it is repeated.
   */
  @Test
  void aMoveFinishedByTheSweeperIsNotAppliedAgainByTheRequestThatBeganIt() {
    String hot = "stalled-" + run;
    gate.register(hot, 30, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    GateLayout.Partition source = buckets.get(2);
    GateLayout.Partition target = buckets.get(0);
    String member = moves.moveOut(session(), hot, source, target, 5);
    WholeGate other = TestRedis.gate(redis, LAYOUT, Duration.ofHours(24));

    assertThat(other.settleTransfers(Duration.ZERO)).isEqualTo(1);
    moves.settle(session(), source, member);
    moves.settle(session(), source, member);
    assertThat(other.settleTransfers(Duration.ZERO)).isZero();

    assertThat(redis.opsForHash().get(target.counters(hot), "available")).isEqualTo("15");
    assertThat(bucketTotals(hot, buckets))
        .containsEntry("available", 30L)
        .containsEntry("outgoing", 0L);
  }

  /**
   * Moves left halfway, and settlers of several instances at once, each reading the moves and
   * running their steps as often as it finds them: every move arrives once.
   */
  @Test
  void concurrentSettlersApplyEveryMoveOnce() throws Exception {
    String hot = "settlers-" + run;
    gate.register(hot, 300, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    for (int i = 0; i < 30; i++) {
      GateLayout.Partition source = buckets.get(i % 3);
      GateLayout.Partition target = buckets.get((i + 1) % 3);
      assertThat(moves.moveOut(session(), hot, source, target, 1 + i % 4)).isNotNull();
    }
    ExecutorService pool = Executors.newFixedThreadPool(6);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Void>> settlers = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      BucketMoves settler = TestRedis.moves(redis, LAYOUT);
      settlers.add(
          pool.submit(
              () -> {
                start.await();
                for (int round = 0; round < 3; round++) {
                  for (GateLayout.Partition source : buckets) {
                    for (String move :
                        movesOf(hot, settler.movesLeft(session(), source, Duration.ZERO))) {
                      settler.settle(session(), source, move);
                    }
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<Void> settler : settlers) {
      settler.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(bucketTotals(hot, buckets))
        .containsEntry("available", 300L)
        .containsEntry("outgoing", 0L);
  }

  /**
   * A flash sale of one hot SKU in three buckets: many users, some asking for more than one unit.
   * Exactly the stock is reserved, and every request refused as sold out asked for more than all
   * the buckets together still hold at the end (they only ever go down here): none was refused that
   * the total could have served.
   */
  @Test
  void aHotSkuInBucketsIsNeverRefusedWhileTheTotalCouldServe() throws Exception {
    String hot = "sale-" + run;
    long stock = 90;
    gate.register(hot, stock, null, 3);
    List<GateLayout.Partition> buckets = bucketsOf(hot);
    Map<String, Integer> admitted = new ConcurrentHashMap<>();
    List<Integer> soldOut = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(24);
    List<Future<Void>> futures = new ArrayList<>();
    for (int t = 0; t < 24; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                Random random = new Random(thread);
                for (int i = 0; i < 12; i++) {
                  int quantity = 1 + random.nextInt(4);
                  String id = "S-" + run + "-" + thread + "-" + i;
                  String user = userOfFirstBucket(thread * 100 + i, 3);
                  AdmissionDecision decision =
                      gate.reserve(admission(id, user, line(hot, quantity)));
                  if (decision instanceof AdmissionDecision.Admitted) {
                    admitted.put(id, quantity);
                  } else if (decision instanceof AdmissionDecision.Insufficient) {
                    soldOut.add(quantity);
                  } else {
                    assertThat(decision).isInstanceOf(AdmissionDecision.Unavailable.class);
                  }
                }
                return null;
              }));
    }
    for (Future<Void> future : futures) {
      future.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();

    long reserved = admitted.values().stream().mapToLong(Integer::longValue).sum();
    Map<String, Long> totals = bucketTotals(hot, buckets);
    assertThat(totals).containsEntry("reserved", reserved).containsEntry("outgoing", 0L);
    assertThat(totals.get("available") + reserved).isEqualTo(stock);
    assertThat(soldOut).as("the sale sold out").isNotEmpty();
    assertThat(soldOut)
        .allSatisfy(q -> assertThat((long) q).isGreaterThan(totals.get("available")));
  }

  /** A session in the epoch the gate's tests run in. */
  private static GateSession session() {
    return new GateSession(redis, TestRedis.epoch(redis, LAYOUT));
  }

  /** The moves of the SKU among those listed. */
  private static List<String> movesOf(String sku, List<String> moves) {
    return moves.stream().filter(move -> move.split(" ")[1].equals(sku)).toList();
  }

  /** Where the gate put a SKU's buckets, as its home counters record it. */
  private static List<GateLayout.Partition> bucketsOf(String sku) {
    return LAYOUT.buckets(String.valueOf(redis.opsForHash().get(LAYOUT.counters(sku), "buckets")));
  }

  /** A user id of this run whose reservations of a SKU in {@code count} buckets use bucket 0. */
  private String userOfFirstBucket(int n, int count) {
    for (int suffix = 0; ; suffix++) {
      String user = "u-" + run + "-" + n + "-" + suffix;
      if (GateLayout.bucketOf(user, count) == 0) {
        return user;
      }
    }
  }

  private static Map<String, Long> bucketTotals(String sku, List<GateLayout.Partition> buckets) {
    Map<String, Long> totals = new HashMap<>();
    for (GateLayout.Partition bucket : buckets) {
      redis
          .opsForHash()
          .entries(bucket.counters(sku))
          .forEach(
              (field, value) -> {
                if (List.of("available", "reserved", "sold", "outgoing").contains(field)) {
                  totals.merge(field.toString(), Long.parseLong(value.toString()), Long::sum);
                }
              });
    }
    totals.putIfAbsent("outgoing", 0L);
    return totals;
  }

  private static int partitionsOf(List<ReservationLine> lines) {
    Set<Integer> partitions = new TreeSet<>();
    lines.forEach(line -> partitions.add(LAYOUT.of(line.skuId()).index()));
    return partitions.size();
  }

  /** Every partition's intent of the reservation that exists: partition tag to fields. */
  private static Map<String, Map<Object, Object>> intentsOf(String reservationId) {
    Map<String, Map<Object, Object>> intents = new HashMap<>();
    for (GateLayout.Partition partition : LAYOUT.partitions()) {
      Map<Object, Object> intent = redis.opsForHash().entries(partition.intent(reservationId));
      if (!intent.isEmpty()) {
        intents.put(partition.tag(), intent);
      }
    }
    return intents;
  }

  /**
   * The decision entries of a reservation in every partition's decision stream, oldest first in
   * each: "<partition tag> <outcome> <skuId> <quantity> <availableAfter> ...".
   */
  private static List<String> decisionsOf(String reservationId) {
    List<String> decisions = new ArrayList<>();
    for (GateLayout.Partition partition : LAYOUT.partitions()) {
      List<org.springframework.data.redis.connection.stream.MapRecord<String, Object, Object>>
          entries =
              redis
                  .opsForStream()
                  .range(partition.decisions(), org.springframework.data.domain.Range.unbounded());
      for (var entry :
          entries == null
              ? List
                  .<org.springframework.data.redis.connection.stream.MapRecord<
                          String, Object, Object>>
                      of()
              : entries) {
        String[] fields = String.valueOf(entry.getValue().get("d")).split(" ", 6);
        if (fields[4].equals(reservationId)) {
          decisions.add(partition.tag() + " " + fields[2] + " " + fields[5]);
        }
      }
    }
    return decisions;
  }

  private static List<String> pendingOf(String reservationId) {
    List<String> pending = new ArrayList<>();
    for (GateLayout.Partition partition : LAYOUT.partitions()) {
      if (redis.opsForZSet().score(partition.pending(), partition.intent(reservationId)) != null) {
        pending.add(partition.tag());
      }
    }
    return pending;
  }

  private static Map<String, Map<Object, Object>> countersOf(List<String> skus) {
    Map<String, Map<Object, Object>> counters = new java.util.LinkedHashMap<>();
    skus.forEach(sku -> counters.put(sku, redis.opsForHash().entries(LAYOUT.counters(sku))));
    return counters;
  }

  private static List<Long> available(List<String> skus) {
    return skus.stream()
        .map(
            sku ->
                Long.parseLong(
                    redis.opsForHash().get(LAYOUT.counters(sku), "available").toString()))
        .toList();
  }

  private static Admission admission(String id, String user, ReservationLine... lines) {
    return new Admission(id, user, List.of(lines), HOLD, NOW);
  }

  private static ReservationLine line(String sku, int quantity) {
    return new ReservationLine(sku, quantity);
  }
}
