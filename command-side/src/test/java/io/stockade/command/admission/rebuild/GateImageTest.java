package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.command.admission.redis.WholeGate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/** What a rebuild writes is what the gate would hold had it never lost anything. */
class GateImageTest {

  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  private static final Duration HOLD = Duration.ofMinutes(15);

  @Test
  void foldsCountersHoldersAndReplenishmentsFromTheRecord() {
    GateImage image = new GateImage();
    List.of(
            new SkuRegistered("a", 10, 3),
            new SkuRegistered("b", 5, null),
            new StockReplenished("a", "R-1", 4),
            reserved("O-1", "u-1", 7, new ReservationLine("a", 2), new ReservationLine("b", 1)),
            reserved("O-2", "u-2", 8, new ReservationLine("a", 3)),
            reserved("O-3", "u-1", 9, new ReservationLine("a", 1)),
            new StockConfirmed(
                "O-1",
                "u-1",
                List.of(new ReservationLine("a", 2), new ReservationLine("b", 1)),
                T0.plusSeconds(60)),
            new StockReleased("O-2", "u-2", List.of(), "CANCELLED", T0.plusSeconds(70)),
            new ReservationAbandoned("O-4", "u-3", List.of(new ReservationLine("b", 1)), 12, T0))
        .forEach(image::apply);

    GateImage.Sku a = image.skus.get("a");
    assertThat(List.of(a.available, a.reserved, a.sold, a.limit)).containsExactly(11L, 1L, 2L, 3L);
    assertThat(a.holders).containsExactlyInAnyOrderEntriesOf(Map.of("u-1", 3L));
    assertThat(a.replenishments).containsExactlyInAnyOrderEntriesOf(Map.of("R-1", 4L));
    GateImage.Sku b = image.skus.get("b");
    assertThat(List.of(b.available, b.reserved, b.sold, b.limit)).containsExactly(4L, 0L, 1L, -1L);
    assertThat(image.sequence).as("the abandoned admission's number too").isEqualTo(12);

    Map<String, GateImage.Intent> kept =
        image.intentsToKeep(T0.plusSeconds(80), Duration.ofSeconds(15));
    assertThat(kept).containsOnlyKeys("O-2", "O-3");
    assertThat(kept.get("O-2").state).isEqualTo("RELEASED");
    assertThat(kept.get("O-2").reason).isEqualTo("CANCELLED");
    assertThat(kept.get("O-3").state).isEqualTo("RESERVED");
  }

  @Test
  void forgetsAReservationThatEndedBeforeTheRetentionAsSoonAsItsEndIsFolded() {
    Instant now = T0.plus(Duration.ofDays(3));
    GateImage image = new GateImage(now, Duration.ofHours(24));
    image.apply(new SkuRegistered("a", 300_000, null));
    for (int i = 0; i < 100_000; i++) {
      image.apply(reserved("O-" + i, "u-" + i, i, new ReservationLine("a", 2)));
      image.apply(
          new StockConfirmed(
              "O-" + i, "u-" + i, List.of(new ReservationLine("a", 2)), T0.plusSeconds(60)));
    }
    image.apply(reserved("O-live", "u-live", 100_000, new ReservationLine("a", 1)));
    image.apply(reserved("O-recent", "u-recent", 100_001, new ReservationLine("a", 1)));
    image.apply(new StockReleased("O-recent", "u-recent", List.of(), "CANCELLED", now));

    assertThat(image.intents).as("held while folding").containsOnlyKeys("O-live", "O-recent");
    GateImage.Sku a = image.skus.get("a");
    assertThat(List.of(a.available, a.reserved, a.sold)).containsExactly(99_999L, 1L, 200_000L);
    assertThat(a.holders)
        .as("confirmed buyers stay holders")
        .hasSize(100_001)
        .containsEntry("u-99999", 2L)
        .containsEntry("u-live", 1L)
        .doesNotContainKey("u-recent");
  }

  @Test
  void aRebuiltIntentIsTheOneTheGateWrote() {
    StringRedisTemplate redis = TestRedis.shared();
    WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));
    String run = UUID.randomUUID().toString().substring(0, 8);
    gate.register("x-" + run, 10, null, 1);
    gate.register("y-" + run, 10, null, 1);
    List<ReservationLine> lines =
        List.of(new ReservationLine("y-" + run, 2), new ReservationLine("x-" + run, 1));
    AdmissionDecision.Admitted admitted =
        (AdmissionDecision.Admitted)
            gate.reserve(new Admission("O-" + run, "u-1", lines, HOLD, T0));
    Map<Object, Object> written =
        redis.opsForHash().entries(TestRedis.PARTITION.intent("O-" + run));

    GateImage image = new GateImage();
    image.apply(
        new StockReserved(
            "O-" + run,
            "u-1",
            lines,
            admitted.admittedAt(),
            admitted.expiresAt(),
            admitted.sequence(),
            admitted.gateEpoch()));
    GateImage.Intent rebuilt = image.intents.get("O-" + run);

    assertThat(rebuilt.fingerprint()).isEqualTo(written.get("fingerprint"));
    assertThat(GateImage.recordedLines(rebuilt.lines)).isEqualTo(written.get("lines"));
    assertThat(String.valueOf(rebuilt.sequence)).isEqualTo(written.get("sequence"));
    assertThat(String.valueOf(rebuilt.epoch))
        .as("the admission's epoch, which every later step names")
        .isEqualTo(written.get("epoch"));
    assertThat(String.valueOf(rebuilt.admittedAt.toEpochMilli()))
        .isEqualTo(written.get("admittedAt"));
    assertThat(String.valueOf(rebuilt.expiresAt.toEpochMilli()))
        .isEqualTo(written.get("expiresAt"));
    assertThat(rebuilt.userId).isEqualTo(written.get("user"));
  }

  @Test
  void aRebuiltIntentAndCountersAfterAnExtensionAndAPartialConfirmationAreTheGates() {
    StringRedisTemplate redis = TestRedis.shared();
    WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));
    String run = UUID.randomUUID().toString().substring(0, 8);
    String x = "x-" + run;
    String y = "y-" + run;
    gate.register(x, 10, 4, 1);
    gate.register(y, 10, null, 1);
    List<ReservationLine> lines = List.of(new ReservationLine(y, 2), new ReservationLine(x, 3));
    List<ReservationLine> sold = List.of(new ReservationLine(x, 1));
    List<ReservationLine> left = List.of(new ReservationLine(y, 2), new ReservationLine(x, 2));
    AdmissionDecision.Admitted admitted =
        (AdmissionDecision.Admitted)
            gate.reserve(new Admission("O-" + run, "u-1", lines, HOLD, T0));
    Instant extended = admitted.expiresAt().plusSeconds(600);
    gate.extend("O-" + run, admitted.admission(), lines, extended);
    Map<Object, Object> reservedIntent =
        redis.opsForHash().entries(TestRedis.PARTITION.intent("O-" + run));
    gate.confirm("O-" + run, admitted.admission(), lines, sold);
    Map<Object, Object> written =
        redis.opsForHash().entries(TestRedis.PARTITION.intent("O-" + run));

    GateImage image = new GateImage();
    image.apply(new SkuRegistered(x, 10, 4));
    image.apply(new SkuRegistered(y, 10, null));
    image.apply(
        new StockReserved(
            "O-" + run,
            "u-1",
            lines,
            admitted.admittedAt(),
            admitted.expiresAt(),
            admitted.sequence(),
            admitted.gateEpoch()));
    image.apply(new ReservationExtended("O-" + run, "u-1", extended, T0.plusSeconds(5)));
    GateImage.Intent rebuilt = image.intents.get("O-" + run);
    assertThat(String.valueOf(rebuilt.expiresAt.toEpochMilli()))
        .isEqualTo(reservedIntent.get("expiresAt"));
    image.apply(new StockConfirmed("O-" + run, "u-1", sold, T0.plusSeconds(9)));
    image.apply(
        new StockReleased("O-" + run, "u-1", left, StockReleased.NOT_CONFIRMED, T0.plusSeconds(9)));

    assertThat(rebuilt.fingerprint())
        .as("a retry still matches the admission, extended or not")
        .isEqualTo(written.get("fingerprint"));
    assertThat(rebuilt.state).isEqualTo(written.get("state")).isEqualTo("CONFIRMED");
    assertThat(rebuilt.confirmedOf(rebuilt.lines)).isEqualTo(written.get("confirmed"));
    for (String sku : List.of(x, y)) {
      GateImage.Sku folded = image.skus.get(sku);
      Map<Object, Object> counters = redis.opsForHash().entries(TestRedis.LAYOUT.counters(sku));
      assertThat(
              List.of(
                  String.valueOf(folded.available),
                  String.valueOf(folded.reserved),
                  String.valueOf(folded.sold)))
          .as(sku)
          .containsExactly(
              (String) counters.get("available"),
              (String) counters.get("reserved"),
              (String) counters.get("sold"));
      Object held = redis.opsForHash().get(TestRedis.LAYOUT.holders(sku), "u-1");
      assertThat(
              folded.holders.get("u-1") == null ? null : String.valueOf(folded.holders.get("u-1")))
          .as(sku + " holders")
          .isEqualTo(held);
    }
  }

  private static StockReserved reserved(
      String id, String user, long sequence, ReservationLine... lines) {
    return new StockReserved(id, user, List.of(lines), T0, T0.plus(HOLD), sequence, 1);
  }
}
