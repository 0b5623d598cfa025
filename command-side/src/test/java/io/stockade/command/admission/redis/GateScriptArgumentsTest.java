package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Every malformed call of every gate script is an error reply and changes no key: the scripts
 * validate arguments and key types before their first write.
 */
class GateScriptArgumentsTest {

  private static final String SKU = "args-sku";
  private static final String RESERVATION = "args-reservation";

  private final StringRedisTemplate redis = TestRedis.shared();
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  // In a partition no running service sweeps or drains: the test compares its shared keys.
  private final String sku = TestRedis.quietSku(SKU + "-" + run);
  private final String reservation = RESERVATION + "-" + run;

  /** A script call: the script, its keys and arguments, and what to corrupt before it runs. */
  record Call(String script, List<String> keys, List<String> args, Consumer<Fixture> corrupt) {

    Call(String script, List<String> keys, List<String> args) {
      this(script, keys, args, fixture -> {});
    }
  }

  /** Names of this test's keys, for building calls before the run id is known. */
  record Fixture(StringRedisTemplate redis, String sku, String reservation) {

    String counters() {
      return TestRedis.QUIET_LAYOUT.counters(sku);
    }

    String holders() {
      return TestRedis.QUIET_LAYOUT.holders(sku);
    }

    String replenishments() {
      return TestRedis.QUIET_LAYOUT.replenishments(sku);
    }

    String adjustments() {
      return TestRedis.QUIET.adjustments(sku);
    }

    String intent() {
      return TestRedis.QUIET.intent(reservation);
    }

    String fresh() {
      return TestRedis.QUIET.intent(reservation + "-new");
    }

    /** A rate limit's token bucket of this test's own (reserve.lua takes them first). */
    String bucket() {
      return "stockade:ratelimit:user:{" + reservation + "}";
    }

    /** A decision stream's key of this test's own, for the calls that corrupt it. */
    String decisions() {
      return TestRedis.QUIET.decisions() + "-" + reservation;
    }
  }

  static Stream<Arguments> malformedCalls() {
    return Stream.of(
        reserve("non-numeric quantity", "u-1", "abc"),
        reserve("zero quantity", "u-1", "0"),
        reserve("negative quantity", "u-1", "-1"),
        reserve("quantity over 2^31-1", "u-1", "2147483648"),
        reserve("fractional quantity", "u-1", "1.5"),
        reserve("empty quantity", "u-1", ""),
        reserve("userId with a space", "u 1", "1"),
        reserve("empty userId", "", "1"),
        Arguments.of(
            "reserve: non-numeric now",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "x", "900000", "0", "0", "1000000", "1", f.sku(),
                            "1"))),
        Arguments.of(
            "reserve: negative hold",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "-5", "0", "0", "1000000", "1", f.sku(), "1"))),
        Arguments.of(
            "reserve: negative sequence",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "-1", "0", "1000000", "1", f.sku(),
                            "1"))),
        Arguments.of(
            "reserve: partition over 1023",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "1024", "1000000", "1", f.sku(),
                            "1"))),
        Arguments.of(
            "reserve: skuId with a brace",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1", "a{b",
                            "1"))),
        Arguments.of(
            "reserve: a key missing",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f).subList(0, 6),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1", f.sku(),
                            "1"))),
        Arguments.of(
            "reserve: zero backlog",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "0", "1", f.sku(), "1"))),
        Arguments.of(
            "reserve: flags not 0 to 3",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "4", f.sku(),
                            "1"))),
        Arguments.of(
            "reserve: decisions of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        List.of(
                            f.fresh(),
                            TestRedis.QUIET.sequence(),
                            TestRedis.QUIET.pending(),
                            f.decisions(),
                            TestRedis.QUIET.dropped(),
                            f.counters(),
                            f.holders()),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1", f.sku(),
                            "1"),
                        fx -> fx.redis().opsForValue().set(fx.decisions(), "x"))),
        Arguments.of(
            "reserve: gap of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        List.of(
                            f.fresh(),
                            TestRedis.QUIET.sequence(),
                            TestRedis.QUIET.pending(),
                            TestRedis.QUIET.decisions(),
                            f.decisions(),
                            f.counters(),
                            f.holders()),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1", f.sku(),
                            "1"),
                        fx -> fx.redis().opsForValue().set(fx.decisions(), "x"))),
        Arguments.of(
            "reserve: an argument missing",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        reserveKeys(f),
                        List.of(
                            "0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1", f.sku()))),
        Arguments.of(
            "reserve: counters of the wrong type",
            (Fn) f -> validReserve(f, fx -> replaceWithString(fx, fx.counters()))),
        Arguments.of(
            "reserve: holders of the wrong type",
            (Fn)
                f ->
                    validReserve(
                        f,
                        fx -> {
                          fx.redis().delete(fx.holders());
                          fx.redis().opsForSet().add(fx.holders(), "x");
                        })),
        Arguments.of(
            "reserve: more than 64 token buckets",
            (Fn) f -> withBucket(f, List.of("65", "5", "1"), fx -> {})),
        Arguments.of(
            "reserve: a token bucket's capacity 0",
            (Fn) f -> withBucket(f, List.of("1", "0", "1"), fx -> {})),
        Arguments.of(
            "reserve: a token bucket's refill with an exponent",
            (Fn) f -> withBucket(f, List.of("1", "5", "1e3"), fx -> {})),
        Arguments.of(
            "reserve: a token bucket of the wrong type",
            (Fn)
                f ->
                    withBucket(
                        f,
                        List.of("1", "5", "1"),
                        fx -> fx.redis().opsForValue().set(fx.bucket(), "x"))),
        Arguments.of(
            // The bucket has a token; the error that follows takes none.
            "reserve: a valid token bucket, then a zero quantity",
            (Fn)
                f ->
                    new Call(
                        "reserve",
                        withBucketKey(f),
                        List.of(
                            "1", "5", "1", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1",
                            f.sku(), "0"))),
        Arguments.of(
            "reserve: intent of the wrong type",
            (Fn) f -> validReserve(f, fx -> fx.redis().opsForList().leftPush(fx.fresh(), "x"))),
        Arguments.of(
            "register: negative stock",
            (Fn) f -> new Call("register", List.of(f.counters() + "-new"), List.of("-1", "-1"))),
        Arguments.of(
            "register: non-numeric limit",
            (Fn) f -> new Call("register", List.of(f.counters() + "-new"), List.of("5", "x"))),
        Arguments.of(
            "register: counters of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "register",
                        List.of(f.counters()),
                        List.of("5", "-1"),
                        fx -> replaceWithString(fx, fx.counters()))),
        Arguments.of(
            "transition: unknown target state",
            (Fn)
                f ->
                    transition(
                        f,
                        List.of(
                            "SOLD",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            "CANCELLED"))),
        Arguments.of(
            "transition: zero retention",
            (Fn)
                f ->
                    transition(
                        f, List.of("CONFIRMED", sequence(f), admissionEpoch(f), "0", lines(f)))),
        Arguments.of(
            "transition: non-numeric retention",
            (Fn)
                f ->
                    transition(
                        f, List.of("CONFIRMED", sequence(f), admissionEpoch(f), "x", lines(f)))),
        Arguments.of(
            "transition: a key missing",
            (Fn)
                f ->
                    new Call(
                        "transition",
                        List.of(f.intent(), f.counters()),
                        List.of("CONFIRMED", sequence(f), admissionEpoch(f), "1000", lines(f)))),
        Arguments.of(
            "transition: counters of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "transition",
                        transitionKeys(f),
                        List.of("CONFIRMED", sequence(f), admissionEpoch(f), "1000", lines(f)),
                        fx -> replaceWithString(fx, fx.counters()))),
        Arguments.of(
            "transition: lower-case reason",
            (Fn)
                f ->
                    transition(
                        f,
                        List.of(
                            "RELEASED",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            "cancelled"))),
        Arguments.of(
            "transition: release without a reason",
            (Fn)
                f ->
                    transition(
                        f, List.of("RELEASED", sequence(f), admissionEpoch(f), "1000", lines(f)))),
        Arguments.of(
            "transition: holders of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "transition",
                        transitionKeys(f),
                        List.of(
                            "RELEASED",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            "CANCELLED"),
                        fx -> replaceWithString(fx, fx.holders()))),
        Arguments.of(
            "transition: confirmed more than reserved",
            (Fn)
                f ->
                    transition(
                        f,
                        List.of(
                            "CONFIRMED",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            f.sku() + " 3"))),
        Arguments.of(
            "transition: confirmed a SKU not reserved",
            (Fn)
                f ->
                    transition(
                        f,
                        List.of(
                            "CONFIRMED",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            f.sku() + " 1 other-" + f.sku() + " 1"))),
        Arguments.of(
            "transition: confirmed lines malformed",
            (Fn)
                f ->
                    transition(
                        f,
                        List.of(
                            "CONFIRMED",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            f.sku() + "  1"))),
        Arguments.of(
            "transition: one SKU confirmed twice",
            (Fn)
                f ->
                    transition(
                        f,
                        List.of(
                            "CONFIRMED",
                            sequence(f),
                            admissionEpoch(f),
                            "1000",
                            lines(f),
                            f.sku() + " 1 " + f.sku() + " 1"))),
        Arguments.of(
            "extend: non-numeric expiresAt",
            (Fn)
                f ->
                    new Call(
                        "extend",
                        List.of(f.intent()),
                        List.of(sequence(f), admissionEpoch(f), "soon"))),
        Arguments.of(
            "extend: intent of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "extend",
                        List.of(f.intent()),
                        List.of(sequence(f), admissionEpoch(f), "1893456000000"),
                        fx -> replaceWithString(fx, fx.intent()))),
        Arguments.of(
            "withdraw: non-numeric sequence",
            (Fn)
                f ->
                    new Call(
                        "withdraw", withdrawKeys(f), List.of("x", admissionEpoch(f), lines(f)))),
        Arguments.of(
            "withdraw: lines missing",
            (Fn)
                f ->
                    new Call("withdraw", withdrawKeys(f), List.of(sequence(f), admissionEpoch(f)))),
        Arguments.of(
            "withdraw: a key missing",
            (Fn)
                f ->
                    new Call(
                        "withdraw",
                        List.of(
                            f.intent(),
                            TestRedis.QUIET.pending(),
                            TestRedis.QUIET.decisions(),
                            f.counters()),
                        List.of(sequence(f), admissionEpoch(f), lines(f)))),
        Arguments.of(
            "withdraw: counters of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "withdraw",
                        withdrawKeys(f),
                        List.of(sequence(f), admissionEpoch(f), lines(f)),
                        fx -> replaceWithString(fx, fx.counters()))),
        Arguments.of(
            "withdraw: decisions of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "withdraw",
                        List.of(
                            f.intent(),
                            TestRedis.QUIET.pending(),
                            f.decisions(),
                            f.counters(),
                            f.holders()),
                        List.of(sequence(f), admissionEpoch(f), lines(f)),
                        fx -> fx.redis().opsForValue().set(fx.decisions(), "x"))),
        Arguments.of(
            "transition: non-numeric sequence",
            (Fn)
                f -> transition(f, List.of("CONFIRMED", "x", admissionEpoch(f), "1000", lines(f)))),
        Arguments.of(
            "transition: non-numeric admission epoch",
            (Fn) f -> transition(f, List.of("CONFIRMED", sequence(f), "x", "1000", lines(f)))),
        Arguments.of(
            "transition: admission epoch missing",
            (Fn) f -> transition(f, List.of("CONFIRMED", sequence(f)))),
        Arguments.of(
            "withdraw: non-numeric admission epoch",
            (Fn) f -> new Call("withdraw", withdrawKeys(f), List.of(sequence(f), "1.5", lines(f)))),
        Arguments.of(
            "recorded: non-numeric sequence",
            (Fn) f -> new Call("recorded", recordedKeys(f), List.of("x", admissionEpoch(f)))),
        Arguments.of(
            "recorded: admission epoch missing",
            (Fn) f -> new Call("recorded", recordedKeys(f), List.of(sequence(f)))),
        Arguments.of(
            "recorded: the pending list missing",
            (Fn)
                f ->
                    new Call(
                        "recorded", List.of(f.intent()), List.of(sequence(f), admissionEpoch(f)))),
        Arguments.of(
            "recorded: intent of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "recorded",
                        List.of(f.fresh(), TestRedis.QUIET.pending()),
                        List.of(sequence(f), admissionEpoch(f)),
                        fx -> fx.redis().opsForList().leftPush(fx.fresh(), "x"))),
        Arguments.of(
            "transfer: no mode", (Fn) f -> new Call("transfer", transferKeys(f), List.of())),
        Arguments.of(
            "transfer: unknown mode",
            (Fn) f -> new Call("transfer", transferKeys(f), List.of("SIDEWAYS", "T-1", "1", "1"))),
        Arguments.of(
            "transfer: OUT of zero units",
            (Fn)
                f -> new Call("transfer", transferKeys(f), List.of("OUT", "7", f.sku(), "1", "0"))),
        Arguments.of(
            "transfer: OUT with a move id with a space",
            (Fn)
                f ->
                    new Call(
                        "transfer", transferKeys(f), List.of("OUT", "7 1", f.sku(), "1", "2"))),
        Arguments.of(
            "transfer: EXPECT of zero units",
            (Fn) f -> new Call("transfer", expectKeys(f), List.of("EXPECT", f.sku(), "0", "0"))),
        Arguments.of(
            "transfer: EXPECT without the move sequence",
            (Fn) f -> new Call("transfer", inKeys(f), List.of("EXPECT", f.sku(), "2", "0"))),
        Arguments.of(
            "transfer: IN of non-numeric units",
            (Fn) f -> new Call("transfer", inKeys(f), List.of("IN", "7", f.sku(), "two"))),
        Arguments.of(
            "transfer: IN of more units than expected",
            (Fn)
                f ->
                    new Call(
                        "transfer",
                        inKeys(f),
                        List.of("IN", "7", f.sku(), "3"),
                        fx -> expect(fx, "7", "EXPECTED " + fx.sku() + " 2"))),
        Arguments.of(
            "transfer: IN of a move of another SKU",
            (Fn)
                f ->
                    new Call(
                        "transfer",
                        inKeys(f),
                        List.of("IN", "7", f.sku(), "2"),
                        fx -> expect(fx, "7", "EXPECTED other-sku 2"))),
        Arguments.of(
            "transfer: IN with moves in of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "transfer",
                        inKeys(f),
                        List.of("IN", "7", f.sku(), "2"),
                        fx -> replaceWithString(fx, TestRedis.QUIET.transfersIn()))),
        Arguments.of(
            "transfer: FORGET of a move listed as garbage",
            (Fn)
                f ->
                    new Call(
                        "transfer",
                        List.of(TestRedis.QUIET.transfersIn()),
                        List.of("FORGET", "7"),
                        fx -> expect(fx, "7", "garbage"))),
        Arguments.of(
            "transfer: DONE of a member without units",
            (Fn) f -> new Call("transfer", transferKeys(f), List.of("DONE", "7 sku"))),
        Arguments.of(
            "transfer: LEFT of a negative bound",
            (Fn)
                f ->
                    new Call(
                        "transfer",
                        List.of(TestRedis.QUIET.transfers()),
                        List.of("LEFT", "-1", "10"))),
        Arguments.of(
            "pending: a negative bound",
            (Fn) f -> new Call("pending", List.of(TestRedis.QUIET.pending()), List.of("-1", "10"))),
        Arguments.of(
            "pending: no count",
            (Fn) f -> new Call("pending", List.of(TestRedis.QUIET.pending()), List.of("1000"))),
        Arguments.of(
            "pending: a count of zero",
            (Fn)
                f -> new Call("pending", List.of(TestRedis.QUIET.pending()), List.of("1000", "0"))),
        Arguments.of(
            "pending: no pending list",
            (Fn) f -> new Call("pending", List.of(), List.of("1000", "10"))),
        Arguments.of(
            "pending: a pending list of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "pending",
                        List.of(f.fresh()),
                        List.of("1000", "10"),
                        fx -> fx.redis().opsForList().leftPush(fx.fresh(), "x"))),
        Arguments.of(
            "replenish: zero quantity",
            (Fn) f -> new Call("replenish", replenishKeys(f), List.of("R-1", "0"))),
        Arguments.of(
            "replenish: non-numeric quantity",
            (Fn) f -> new Call("replenish", replenishKeys(f), List.of("R-1", "ten"))),
        Arguments.of(
            "replenish: id with a colon",
            (Fn) f -> new Call("replenish", replenishKeys(f), List.of("R:1", "5"))),
        Arguments.of(
            "replenish: applied ids of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "replenish",
                        replenishKeys(f),
                        List.of("R-1", "5"),
                        fx -> replaceWithString(fx, fx.replenishments()))),
        Arguments.of(
            "reserve: counters with a malformed opensAt",
            (Fn)
                f ->
                    validReserve(
                        f, fx -> fx.redis().opsForHash().put(fx.counters(), "opensAt", "soon"))),
        sale("no part", List.of()),
        sale("an unknown part", List.of("window", "1", "1", "2")),
        sale("a schedule without closesAt", List.of("schedule", "1", "1000", "0")),
        sale("a schedule without its pre-queue", List.of("schedule", "1", "1000", "2000")),
        sale("a negative version", List.of("schedule", "-1", "1000", "2000", "0")),
        sale("opensAt not a number", List.of("schedule", "1", "soon", "2000", "0")),
        sale("opensAt after closesAt", List.of("schedule", "1", "3000", "2000", "0")),
        sale("opensAt at closesAt", List.of("schedule", "1", "2000", "2000", "0")),
        sale("a negative pre-queue", List.of("schedule", "1", "1000", "2000", "-1")),
        sale("a pre-queue without opensAt", List.of("schedule", "1", "-", "2000", "1000")),
        sale("drawn not a number", List.of("drawn", "1", "soon")),
        sale("drawn without its opening", List.of("drawn", "1")),
        sale("paused neither 0 nor 1", List.of("pause", "1", "2")),
        sale("a limit below -1", List.of("limit", "1", "-2")),
        sale("a limit and more", List.of("limit", "1", "3", "4")),
        Arguments.of(
            "sale: counters of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "sale",
                        List.of(f.counters()),
                        List.of("pause", "1", "1"),
                        fx -> replaceWithString(fx, fx.counters()))),
        Arguments.of(
            "sale: counters with a malformed version",
            (Fn)
                f ->
                    new Call(
                        "sale",
                        List.of(f.counters()),
                        List.of("pause", "2", "1"),
                        fx -> fx.redis().opsForHash().put(fx.counters(), "pauseVersion", "x"))),
        Arguments.of(
            "state: an argument", (Fn) f -> new Call("state", List.of(f.counters()), List.of("1"))),
        Arguments.of(
            "state: counters of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "state",
                        List.of(f.counters()),
                        List.of(),
                        fx -> replaceWithString(fx, fx.counters()))),
        adjust("zero quantity", List.of("A-1", "0", "1", "exact")),
        adjust("quantity not a number", List.of("A-1", "-five", "1", "exact")),
        adjust("an id with a colon", List.of("A:1", "-5", "5", "exact")),
        adjust("no units", List.of("A-1", "-5", "0", "exact")),
        adjust("more units than the quantity", List.of("A-1", "-5", "6", "exact")),
        adjust("a positive one in part", List.of("A-1", "5", "4", "exact")),
        adjust("a positive one upto", List.of("A-1", "5", "5", "upto")),
        adjust("an unknown mode", List.of("A-1", "-5", "5", "some")),
        adjust("no mode", List.of("A-1", "-5", "5")),
        Arguments.of(
            "adjust: adjustments of the wrong type",
            (Fn)
                f ->
                    new Call(
                        "adjust",
                        adjustKeys(f),
                        List.of("A-1", "-1", "1", "exact"),
                        fx -> replaceWithString(fx, fx.adjustments()))),
        Arguments.of(
            "adjust: a malformed record",
            (Fn)
                f ->
                    new Call(
                        "adjust",
                        adjustKeys(f),
                        List.of("A-1", "-1", "1", "exact"),
                        fx -> fx.redis().opsForHash().put(fx.adjustments(), "A-1", "five"))),
        Arguments.of(
            "adjust: a pending list of the wrong type",
            (Fn)
                f ->
                    // A key of the test's own in the partition's slot: the partition's own list is
                    // shared with every other test on this Redis, which a string there would fail.
                    new Call(
                        "adjust",
                        List.of(f.counters(), f.adjustments(), f.fresh()),
                        List.of("A-1", "-1", "1", "exact"),
                        fx -> replaceWithString(fx, fx.fresh()))),
        Arguments.of(
            "adjusted: an unknown action",
            (Fn) f -> new Call("adjusted", adjustKeys(f), List.of("A-1", "forget"))),
        Arguments.of(
            "adjusted: an id with a colon",
            (Fn) f -> new Call("adjusted", adjustKeys(f), List.of("A:1", "giveback"))),
        Arguments.of(
            "adjusted: a malformed record",
            (Fn)
                f ->
                    new Call(
                        "adjusted",
                        adjustKeys(f),
                        List.of("A-1", "giveback"),
                        fx -> fx.redis().opsForHash().put(fx.adjustments(), "A-1", "five"))));
  }

  private static Arguments sale(String name, List<String> args) {
    return Arguments.of("sale: " + name, (Fn) f -> new Call("sale", List.of(f.counters()), args));
  }

  private static Arguments adjust(String name, List<String> args) {
    return Arguments.of("adjust: " + name, (Fn) f -> new Call("adjust", adjustKeys(f), args));
  }

  private static List<String> adjustKeys(Fixture f) {
    return List.of(f.counters(), f.adjustments(), TestRedis.QUIET.adjustmentsPending());
  }

  /** Builds a call once the fixture's names are known. */
  interface Fn {
    Call build(Fixture fixture);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedCalls")
  void malformedCallIsAnErrorAndChangesNothing(String name, Fn callOf) {
    Fixture fixture = new Fixture(redis, sku, reservation);
    WholeGate gate = TestRedis.gate(redis, TestRedis.QUIET_LAYOUT, Duration.ofHours(24));
    gate.register(sku, 10, 3, 1);
    gate.reserve(
        new Admission(
            reservation,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            Duration.ofMinutes(15),
            Instant.now()));
    Call call = callOf.build(fixture);
    call.corrupt().accept(fixture);
    List<String> keys =
        List.of(
            fixture.bucket(),
            fixture.counters(),
            fixture.counters() + "-new",
            fixture.holders(),
            fixture.replenishments(),
            fixture.adjustments(),
            TestRedis.QUIET.adjustmentsPending(),
            fixture.intent(),
            fixture.fresh(),
            TestRedis.QUIET.pending(),
            TestRedis.QUIET.decisions(),
            TestRedis.QUIET.dropped(),
            fixture.decisions(),
            TestRedis.QUIET.transfers(),
            TestRedis.QUIET.transferIds(),
            TestRedis.QUIET.transfersIn(),
            TestRedis.QUIET.transferSequence());
    Map<String, String> before = GateKeyDump.of(redis, keys);
    // The gate's marker and epoch come first in every call.
    List<String> gateKeys = new ArrayList<>(List.of(TestRedis.QUIET.marker()));
    gateKeys.addAll(call.keys());
    List<String> gateArgs =
        new ArrayList<>(List.of(String.valueOf(TestRedis.epoch(redis, TestRedis.QUIET_LAYOUT))));
    gateArgs.addAll(call.args());

    assertThatThrownBy(
            () ->
                redis.execute(
                    RedisScript.of(
                        new ClassPathResource("lua/" + call.script() + ".lua"), List.class),
                    gateKeys,
                    gateArgs.toArray()))
        .isInstanceOf(DataAccessException.class)
        .rootCause()
        .message()
        .matches("ERR_(ARGUMENT|TYPE) .*");
    assertThat(GateKeyDump.of(redis, keys)).isEqualTo(before);
  }

  private static Arguments reserve(String name, String user, String quantity) {
    return Arguments.of(
        "reserve: " + name,
        (Fn)
            f ->
                new Call(
                    "reserve",
                    reserveKeys(f),
                    List.of(
                        "0", user, "fp", "1", "900000", "0", "0", "1000000", "1", f.sku(),
                        quantity)));
  }

  private static Call validReserve(Fixture f, Consumer<Fixture> corrupt) {
    return new Call(
        "reserve",
        reserveKeys(f),
        List.of("0", "u-1", "fp", "1", "900000", "0", "0", "1000000", "1", f.sku(), "1"),
        corrupt);
  }

  /**
   * A valid reservation behind one token bucket given by {@code buckets} (count, capacity, refill).
   */
  private static Call withBucket(Fixture f, List<String> buckets, Consumer<Fixture> corrupt) {
    List<String> args = new ArrayList<>(buckets);
    args.addAll(List.of("u-1", "fp", "1", "900000", "0", "0", "1000000", "1", f.sku(), "1"));
    return new Call("reserve", withBucketKey(f), args, corrupt);
  }

  private static List<String> withBucketKey(Fixture f) {
    List<String> keys = new ArrayList<>(List.of(f.bucket()));
    keys.addAll(reserveKeys(f));
    return keys;
  }

  private static List<String> reserveKeys(Fixture f) {
    return List.of(
        f.fresh(),
        TestRedis.QUIET.sequence(),
        TestRedis.QUIET.pending(),
        TestRedis.QUIET.decisions(),
        TestRedis.QUIET.dropped(),
        f.counters(),
        f.holders());
  }

  private static Call transition(Fixture f, List<String> args) {
    return new Call("transition", transitionKeys(f), args);
  }

  private static List<String> transitionKeys(Fixture f) {
    return List.of(f.intent(), f.counters(), f.holders());
  }

  private static List<String> withdrawKeys(Fixture f) {
    return List.of(
        f.intent(),
        TestRedis.QUIET.pending(),
        TestRedis.QUIET.decisions(),
        f.counters(),
        f.holders());
  }

  private static List<String> recordedKeys(Fixture f) {
    return List.of(f.intent(), TestRedis.QUIET.pending());
  }

  /** The gate epoch of the fixture's reservation's admission. */
  private static String admissionEpoch(Fixture f) {
    return String.valueOf(f.redis().opsForHash().get(f.intent(), "epoch"));
  }

  /** The admission sequence of the fixture's reservation. */
  private static String sequence(Fixture f) {
    return String.valueOf(f.redis().opsForHash().get(f.intent(), "sequence"));
  }

  private static List<String> transferKeys(Fixture f) {
    return List.of(f.counters(), TestRedis.QUIET.transfers(), TestRedis.QUIET.transferIds());
  }

  private static List<String> inKeys(Fixture f) {
    return List.of(f.counters(), TestRedis.QUIET.transfersIn());
  }

  private static List<String> expectKeys(Fixture f) {
    return List.of(f.counters(), TestRedis.QUIET.transfersIn(), TestRedis.QUIET.transferSequence());
  }

  /** Lists a move into the fixture's partition as the target would. */
  private static void expect(Fixture fixture, String moveId, String state) {
    fixture.redis().delete(TestRedis.QUIET.transfersIn());
    fixture.redis().opsForHash().put(TestRedis.QUIET.transfersIn(), moveId, state);
  }

  private static List<String> replenishKeys(Fixture f) {
    return List.of(f.counters(), f.replenishments());
  }

  private static String lines(Fixture f) {
    return f.sku() + " 2";
  }

  private static void replaceWithString(Fixture fixture, String key) {
    fixture.redis().delete(key);
    fixture.redis().opsForValue().set(key, "not a hash");
  }
}
