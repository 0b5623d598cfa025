package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.StockAdjustments;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Pins the admission gate against {@link GateModel}: for any sequence of register, reserve (and
 * retry), confirm, release (of the admission, or naming another admission of the id) and replenish
 * steps, the Redis gate answers every step as the model does (a retry is answered with the first
 * admission's sequence and current state), and after every step each SKU's counters and per-user
 * holdings in Redis equal the model's and conserve stock: {@code available + reserved + sold} is
 * the initial stock plus the applied replenishments, and {@code available} is never negative. Each
 * try works on keys of its own, drawn from small pools so that duplicates, reused ids, limits,
 * sold-out SKUs and refused transitions happen often.
 *
 * <p>The sequences are random but seeded: the seed is printed, and {@code -Dstockade.test.seed=...}
 * replays a run.
 */
class GateAgreesWithModelTest {

  private static final int TRIES = 260;

  private static final int SKUS = 3;
  private static final int USERS = 3;
  private static final int RESERVATIONS = 8;
  private static final int REPLENISHMENTS = 4;
  private static final int ADJUSTMENTS = 3;
  private static final long[] ADJUSTMENT_QUANTITIES = {-2, -1, 3};

  /** The letter of each decision in the decision stream; anything else appends none. */
  private static final Map<Class<?>, String> OUTCOME_LETTERS =
      Map.of(
          AdmissionDecision.Admitted.class, "A",
          AdmissionDecision.Insufficient.class, "I",
          AdmissionDecision.LimitExceeded.class, "L",
          AdmissionDecision.SaleNotOpen.class, "N",
          AdmissionDecision.SaleClosed.class, "C",
          AdmissionDecision.SalePaused.class, "P");

  private static final Duration HOLD = Duration.ofSeconds(900);
  private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");

  /** HGETALL of every key, in one round trip. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final RedisScript<List<List<String>>> READ_HASHES =
      (RedisScript)
          RedisScript.of(
              "local hashes = {} for i, key in ipairs(KEYS) do"
                  + " hashes[i] = redis.call('HGETALL', key) end return hashes",
              List.class);

  private final StringRedisTemplate redis = TestRedis.shared();

  /**
   * The lines the gate is told when it confirms or releases: they only say which partitions hold
   * the reservation, and this gate has one.
   */
  private static final List<ReservationLine> IN_ONE_PARTITION =
      List.of(new ReservationLine("any", 1));

  private final WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));

  sealed interface Step {}

  record Register(String sku, long stock, Integer limit) implements Step {}

  record Reserve(String reservation, String user, List<ReservationLine> lines) implements Step {}

  /** Sends the first content sent for that reservation again, lines reversed; if any. */
  record Retry(String reservation) implements Step {}

  /**
   * Confirms the reservation's admission; with {@code other}, names another admission of the id (as
   * a repeat of an earlier reservation of that id would), which the gate must leave alone.
   */
  record Confirm(String reservation, boolean other, boolean partly) implements Step {}

  record Release(String reservation, boolean other) implements Step {}

  record Replenish(String sku, String replenishment, long quantity) implements Step {}

  /** The sale's window, a day or more away from now on either side. */
  enum Window {
    NONE,
    NOT_OPEN,
    OPEN,
    CLOSED
  }

  record Schedule(String sku, long version, Window window) implements Step {}

  record Pause(String sku, long version, boolean paused) implements Step {}

  record LimitChange(String sku, long version, Integer limit) implements Step {}

  /** An adjustment; a negative one is then marked recorded, as the command that stores it does. */
  record Adjust(String sku, String adjustment, long quantity) implements Step {}

  @Test
  void gateAgreesWithTheModelAndConservesStock() {
    long seed = Long.getLong("stockade.test.seed", System.nanoTime());
    System.out.println("gateAgreesWithTheModelAndConservesStock seed=" + seed);
    Random random = new Random(seed);
    Map<String, Integer> outcomes = new TreeMap<>();
    // TRIES sequences, and more (up to four times as many) until every interesting outcome has
    // come: a seed whose sequences happen to miss one must not fail the run.
    for (int attempt = 0;
        attempt < TRIES || (attempt < 4 * TRIES && !outcomes.keySet().containsAll(INTERESTING));
        attempt++) {
      List<Step> steps = steps(random);
      try {
        check(steps, outcomes);
      } catch (AssertionError e) {
        throw new AssertionError(
            "seed " + seed + ", try " + attempt + ", steps " + steps + ": " + e.getMessage(), e);
      }
    }
    System.out.println("outcomes " + outcomes);
    // The sequences must reach every interesting outcome, or the agreement proves little.
    assertThat(outcomes).containsKeys(INTERESTING.toArray(String[]::new));
  }

  /** The outcomes the sequences must reach. */
  private static final List<String> INTERESTING =
      List.of(
          "Admitted",
          "Duplicate RESERVED",
          "Reused",
          "Insufficient",
          "LimitExceeded",
          "UnknownSku",
          "confirm DONE",
          "confirm NOT_ACTIVE",
          "confirm OTHER_ADMISSION",
          "partial confirm DONE",
          "release DONE",
          "release NOT_ACTIVE",
          "release OTHER_ADMISSION",
          "replenish DUPLICATE",
          "replenish CONFLICT",
          "SaleNotOpen",
          "SaleClosed",
          "SalePaused",
          "sale APPLIED",
          "sale STALE",
          "adjust APPLIED",
          "adjust DUPLICATE",
          "adjust CONFLICT",
          "adjust INSUFFICIENT");

  private void check(List<Step> steps, Map<String, Integer> outcomes) {
    String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + "-";
    GateModel model = new GateModel(TestRedis.epoch(redis));
    Map<String, Reserve> sent = new HashMap<>();
    try {
      for (Step step : steps) {
        if (step instanceof Retry retry) {
          Reserve first = sent.get(retry.reservation());
          if (first == null) {
            continue;
          }
          List<ReservationLine> reversed = new ArrayList<>(first.lines());
          Collections.reverse(reversed);
          step = new Reserve(first.reservation(), first.user(), reversed);
        } else if (step instanceof Reserve reserve) {
          sent.putIfAbsent(reserve.reservation(), reserve);
        }
        outcomes.merge(apply(step, prefix, model), 1, Integer::sum);
        checkCounters(prefix, model, step);
      }
    } finally {
      redis.delete(keys(prefix));
    }
  }

  /** Applies the step to the gate and to the model, checks they answer alike; the answer. */
  private String apply(Step step, String prefix, GateModel model) {
    if (step instanceof Register register) {
      gate.register(prefix + register.sku(), register.stock(), register.limit(), 1);
      model.register(prefix + register.sku(), register.stock(), register.limit());
      return "Registered";
    }
    if (step instanceof Reserve reserve) {
      Admission admission =
          new Admission(
              prefix + reserve.reservation(),
              prefix + reserve.user(),
              merged(prefix, reserve.lines()),
              HOLD,
              NOW);
      String before = lastDecision();
      AdmissionDecision actual = gate.reserve(admission);
      long sequence = actual instanceof AdmissionDecision.Admitted a ? a.sequence() : -1;
      // The gate's clock when it refused is Redis's; the model has none.
      AdmissionDecision compared =
          actual instanceof AdmissionDecision.SaleNotOpen n
              ? new AdmissionDecision.SaleNotOpen(n.skuId(), n.lineIndex(), n.opensAt(), null)
              : actual;
      assertThat(compared).as("%s", step).isEqualTo(model.reserve(admission, sequence));
      checkDecision(before, admission, actual, model, step);
      return actual instanceof AdmissionDecision.Duplicate d
          ? "Duplicate " + d.state()
          : actual.getClass().getSimpleName();
    }
    if (step instanceof Confirm confirm) {
      String id = prefix + confirm.reservation();
      AdmissionId named = named(model, id, confirm.other());
      List<ReservationLine> lines = model.lines(id).orElse(null);
      if (!confirm.partly() || lines == null) {
        ReservationTransitions.Transition actual = gate.confirm(id, named, IN_ONE_PARTITION);
        assertThat(actual).as("%s", step).isEqualTo(model.confirm(id, named));
        return "confirm " + actual;
      }
      // Half of each line sold (rounded down: none of a one-unit line), the rest given back.
      Map<String, Integer> sold = new LinkedHashMap<>();
      List<ReservationLine> selling = new ArrayList<>();
      for (ReservationLine line : lines) {
        if (line.quantity() / 2 > 0) {
          sold.put(line.skuId(), line.quantity() / 2);
          selling.add(new ReservationLine(line.skuId(), line.quantity() / 2));
        }
      }
      ReservationTransitions.Transition actual = gate.confirm(id, named, lines, selling);
      assertThat(actual).as("%s", step).isEqualTo(model.confirm(id, named, sold));
      return "partial confirm " + actual;
    }
    if (step instanceof Release release) {
      String id = prefix + release.reservation();
      AdmissionId named = named(model, id, release.other());
      ReservationTransitions.Transition actual =
          gate.release(id, named, IN_ONE_PARTITION, "CANCELLED");
      assertThat(actual).as("%s", step).isEqualTo(model.release(id, named));
      return "release " + actual;
    }
    if (step instanceof Schedule schedule) {
      String sku = prefix + schedule.sku();
      Instant day = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      Instant opens =
          switch (schedule.window()) {
            case NONE -> null;
            case NOT_OPEN -> day.plus(Duration.ofDays(1));
            case OPEN -> day.minus(Duration.ofDays(1));
            case CLOSED -> day.minus(Duration.ofDays(2));
          };
      Instant closes =
          switch (schedule.window()) {
            case NONE -> null;
            case NOT_OPEN -> schedule.version() % 2 == 0 ? null : day.plus(Duration.ofDays(2));
            case OPEN -> schedule.version() % 2 == 0 ? null : day.plus(Duration.ofDays(1));
            case CLOSED -> day.minus(Duration.ofDays(1));
          };
      SaleControl.SaleWrite actual = gate.schedule(sku, schedule.version(), opens, closes);
      assertThat(actual)
          .as("%s", step)
          .isEqualTo(model.schedule(sku, schedule.version(), opens, closes));
      return "sale " + actual;
    }
    if (step instanceof Pause pause) {
      String sku = prefix + pause.sku();
      SaleControl.SaleWrite actual = gate.pause(sku, pause.version(), pause.paused());
      assertThat(actual)
          .as("%s", step)
          .isEqualTo(model.pause(sku, pause.version(), pause.paused()));
      return "sale " + actual;
    }
    if (step instanceof LimitChange limit) {
      String sku = prefix + limit.sku();
      SaleControl.SaleWrite actual = gate.limit(sku, limit.version(), limit.limit());
      assertThat(actual).as("%s", step).isEqualTo(model.limit(sku, limit.version(), limit.limit()));
      return "sale " + actual;
    }
    if (step instanceof Adjust adjust) {
      String sku = prefix + adjust.sku();
      String id = prefix + adjust.adjustment();
      StockAdjustments.Adjustment actual = gate.adjust(sku, id, adjust.quantity());
      assertThat(actual)
          .as("%s", step)
          .usingRecursiveComparison()
          .ignoringFields("gateEpoch")
          .isEqualTo(model.adjust(sku, id, adjust.quantity()));
      if (adjust.quantity() < 0 && actual.outcome() == StockAdjustments.AdjustmentOutcome.APPLIED) {
        assertThat(gate.adjustmentRecorded(sku, id)).isEqualTo(StockAdjustments.Settlement.DONE);
      }
      return "adjust " + actual.outcome();
    }
    Replenish replenish = (Replenish) step;
    String sku = prefix + replenish.sku();
    String id = prefix + replenish.replenishment();
    SkuStock.Replenishment actual = gate.replenish(sku, id, replenish.quantity());
    assertThat(actual).as("%s", step).isEqualTo(model.replenish(sku, id, replenish.quantity()));
    return "replenish " + actual;
  }

  /**
   * The admission a step names: the reservation's (any, if it has none), or another one of its id:
   * the same sequence in another epoch, or another sequence.
   */
  private AdmissionId named(GateModel model, String reservationId, boolean other) {
    AdmissionId admitted =
        model.admission(reservationId).orElse(new AdmissionId(1024, TestRedis.epoch(redis)));
    if (!other) {
      return admitted;
    }
    return admitted.sequence() % 2 == 0
        ? new AdmissionId(admitted.sequence() + 1, admitted.gateEpoch())
        : new AdmissionId(admitted.sequence(), admitted.gateEpoch() + 1);
  }

  /** One line per SKU in the order each first appears, quantities added, as the controller does. */
  private static List<ReservationLine> merged(String prefix, List<ReservationLine> lines) {
    Map<String, Integer> quantities = new LinkedHashMap<>();
    for (ReservationLine line : lines) {
      quantities.merge(prefix + line.skuId(), line.quantity(), Integer::sum);
    }
    List<ReservationLine> merged = new ArrayList<>();
    quantities.forEach((sku, quantity) -> merged.add(new ReservationLine(sku, quantity)));
    return merged;
  }

  /** The id of the partition's newest decision entry, or "0-0". */
  private String lastDecision() {
    List<MapRecord<String, Object, Object>> last =
        redis
            .opsForStream()
            .reverseRange(
                TestRedis.PARTITION.decisions(), Range.unbounded(), Limit.limit().count(1));
    return last == null || last.isEmpty() ? "0-0" : last.get(0).getId().getValue();
  }

  /**
   * A decision (admitted, insufficient, limit exceeded, sale not open, closed or paused) appends
   * exactly one entry to the decision stream: its outcome, the admission's sequence, user and
   * reservation, and every merged line with the SKU's available units after it, as the model has
   * them. Anything else appends none.
   */
  private void checkDecision(
      String before, Admission admission, AdmissionDecision actual, GateModel model, Step step) {
    List<MapRecord<String, Object, Object>> appended =
        redis
            .opsForStream()
            .range(
                TestRedis.PARTITION.decisions(),
                Range.rightUnbounded(Range.Bound.exclusive(before)));
    String outcome = OUTCOME_LETTERS.get(actual.getClass());
    if (outcome == null) {
      assertThat(appended).as("decisions appended by %s", step).isEmpty();
      return;
    }
    assertThat(appended).as("decisions appended by %s", step).hasSize(1);
    String[] fields = String.valueOf(appended.get(0).getValue().get("d")).split(" ");
    if (actual instanceof AdmissionDecision.Admitted admitted) {
      assertThat(fields[0])
          .as("sequence of %s", step)
          .isEqualTo(String.valueOf(admitted.sequence()));
    }
    List<String> expected =
        new ArrayList<>(
            List.of(
                fields[0],
                String.valueOf(TestRedis.epoch(redis)),
                outcome,
                admission.userId(),
                admission.reservationId()));
    for (ReservationLine line : admission.lines()) {
      expected.add(line.skuId());
      expected.add(String.valueOf(line.quantity()));
      expected.add(String.valueOf(model.counters(line.skuId()).orElseThrow().available));
    }
    assertThat(fields).as("decision of %s", step).containsExactlyElementsOf(expected);
  }

  /** Compares each SKU's counters and holders in Redis with the model's. */
  private void checkCounters(String prefix, GateModel model, Step after) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < SKUS; i++) {
      keys.add(TestRedis.LAYOUT.counters(prefix + "s" + i));
      keys.add(TestRedis.LAYOUT.holders(prefix + "s" + i));
    }
    List<List<String>> hashes = redis.execute(READ_HASHES, keys);
    for (int i = 0; i < SKUS; i++) {
      String sku = prefix + "s" + i;
      String where = sku + " after " + after;
      Map<String, String> counters = map(hashes.get(2 * i));
      Map<String, String> holders = map(hashes.get(2 * i + 1));
      Optional<GateModel.Counters> known = model.counters(sku);
      if (known.isEmpty()) {
        assertThat(counters).as("counters of unregistered %s", where).isEmpty();
        assertThat(holders).as("holders of unregistered %s", where).isEmpty();
        continue;
      }
      GateModel.Counters expected = known.get();
      long available = number(counters, "available");
      long reserved = number(counters, "reserved");
      long sold = number(counters, "sold");
      assertThat(List.of(available, reserved, sold))
          .as("available, reserved, sold of %s", where)
          .containsExactly(expected.available, expected.reserved, expected.sold);
      assertThat(available + reserved + sold).as("stock of %s", where).isEqualTo(expected.total);
      assertThat(available).as("available of %s", where).isNotNegative();
      for (int u = 0; u < USERS; u++) {
        String user = prefix + "u" + u;
        String held = holders.get(user);
        assertThat(held == null ? 0 : Long.parseLong(held))
            .as("units %s holds of %s", user, where)
            .isEqualTo(model.held(user, sku));
      }
    }
  }

  private static Map<String, String> map(List<String> fieldsAndValues) {
    Map<String, String> hash = new HashMap<>();
    for (int i = 0; i < fieldsAndValues.size(); i += 2) {
      hash.put(fieldsAndValues.get(i), fieldsAndValues.get(i + 1));
    }
    return hash;
  }

  private static long number(Map<String, String> hash, String field) {
    String value = hash.get(field);
    assertThat(value).as(field).isNotNull();
    return Long.parseLong(value);
  }

  private static List<String> keys(String prefix) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < SKUS; i++) {
      String sku = prefix + "s" + i;
      keys.add(TestRedis.LAYOUT.counters(sku));
      keys.add(TestRedis.LAYOUT.holders(sku));
      keys.add(TestRedis.LAYOUT.replenishments(sku));
      keys.add(TestRedis.PARTITION.adjustments(sku));
    }
    for (int i = 0; i < RESERVATIONS; i++) {
      keys.add(TestRedis.PARTITION.intent(prefix + "r" + i));
    }
    return keys;
  }

  /**
   * A try: most SKUs registered up front (so that most reservations name known SKUs), then 1 to 37
   * mixed steps. Lower reservation ids are drawn more often, so that confirms and releases often
   * find an admission.
   */
  private static List<Step> steps(Random random) {
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < SKUS; i++) {
      if (random.nextInt(5) > 0) {
        steps.add(register(random, "s" + i));
      }
    }
    int mixed = 1 + random.nextInt(40 - SKUS);
    for (int i = 0; i < mixed; i++) {
      int kind = random.nextInt(25);
      if (kind < 2) {
        steps.add(register(random, pick(random, "s", SKUS)));
      } else if (kind < 8) {
        List<ReservationLine> lines = new ArrayList<>();
        for (int l = 1 + random.nextInt(3); l > 0; l--) {
          lines.add(new ReservationLine(pick(random, "s", SKUS), 1 + random.nextInt(4)));
        }
        steps.add(new Reserve(reservation(random), pick(random, "u", USERS), lines));
      } else if (kind < 11) {
        steps.add(new Retry(reservation(random)));
      } else if (kind < 14) {
        steps.add(new Confirm(reservation(random), random.nextInt(5) == 0, random.nextBoolean()));
      } else if (kind < 17) {
        steps.add(new Release(reservation(random), random.nextInt(5) == 0));
      } else if (kind < 19) {
        steps.add(
            new Replenish(
                pick(random, "s", SKUS), pick(random, "p", REPLENISHMENTS), 1 + random.nextInt(3)));
      } else if (kind < 21) {
        Window[] windows = Window.values();
        steps.add(
            new Schedule(
                pick(random, "s", SKUS),
                random.nextInt(6),
                windows[random.nextInt(windows.length)]));
      } else if (kind < 22) {
        steps.add(new Pause(pick(random, "s", SKUS), random.nextInt(6), random.nextInt(3) == 0));
      } else if (kind < 23) {
        steps.add(
            new LimitChange(
                pick(random, "s", SKUS),
                random.nextInt(6),
                random.nextInt(3) == 0 ? null : random.nextInt(4)));
      } else {
        // Mostly the quantity its id always has (repeats are duplicates), else another one.
        int id = random.nextInt(ADJUSTMENTS);
        long quantity = ADJUSTMENT_QUANTITIES[id] - (random.nextInt(4) == 0 ? 1 : 0);
        steps.add(new Adjust(pick(random, "s", SKUS), "a" + id, quantity));
      }
    }
    return steps;
  }

  private static Register register(Random random, String sku) {
    Integer limit = random.nextInt(5) < 2 ? null : 1 + random.nextInt(4);
    return new Register(sku, random.nextInt(11), limit);
  }

  /** r0 is drawn 8 times as often as r7. */
  private static String reservation(Random random) {
    int ticket = random.nextInt(RESERVATIONS * (RESERVATIONS + 1) / 2);
    for (int i = 0; i < RESERVATIONS; i++) {
      ticket -= RESERVATIONS - i;
      if (ticket < 0) {
        return "r" + i;
      }
    }
    throw new IllegalStateException();
  }

  private static String pick(Random random, String kind, int count) {
    return kind + random.nextInt(count);
  }
}
