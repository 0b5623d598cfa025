package io.stockade.command.admission.decisions;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateScripts;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.command.admission.redis.WholeGate;
import io.stockade.localinfra.EmbeddedRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The decision stream of a partition that holds its whole backlog (the database out of reach): an
 * admitted decision is always appended, never trimmed; a refusal is dropped and counted per SKU and
 * user, and the gap closes with one entry per SKU and user where the refusals were dropped, before
 * the next decision appended (reserve.lua) or when the stream has room and none comes (gap.lua).
 * Against a Redis of the test's own: nothing else drains its stream.
 */
class DecisionStreamTest {

  private static final int BACKLOG = 100;

  private static EmbeddedRedis server;
  private static StringRedisTemplate redis;
  private static WholeGate gate;

  private final GateLayout.Partition partition = TestRedis.PARTITION;

  @BeforeAll
  static void start() throws IOException {
    Files.createDirectories(Path.of("target"));
    server = EmbeddedRedis.start(Files.createTempDirectory(Path.of("target"), "decision-stream"));
    redis = TestRedis.template("127.0.0.1", server.port(), TestRedis.TIMEOUT);
    gate = TestRedis.gate(redis, BACKLOG);
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  @BeforeEach
  void emptyStream() {
    redis.delete(List.of(partition.decisions(), partition.dropped()));
  }

  @Test
  void aFullStreamKeepsEveryAdmissionAndCountsTheRefusalsItDrops() {
    gate.register("hot", 300, 1, 1);
    for (int n = 0; n < 60; n++) {
      assertThat(reserve("hot", "A-" + n, "u-" + n, 1))
          .isInstanceOf(AdmissionDecision.Admitted.class);
    }
    for (int n = 0; n < 40; n++) {
      assertThat(reserve("hot", "L-" + n, "u-0", 1))
          .isInstanceOf(AdmissionDecision.LimitExceeded.class);
    }
    assertThat(length()).isEqualTo(BACKLOG);

    // Full: refusals are dropped, counted per SKU and user.
    for (int n = 0; n < 15; n++) {
      assertThat(reserve("hot", "D-" + n, "u-0", 1))
          .isInstanceOf(AdmissionDecision.LimitExceeded.class);
    }
    for (int n = 0; n < 10; n++) {
      assertThat(reserve("hot", "E-" + n, "u-1000", 1000))
          .isInstanceOf(AdmissionDecision.Insufficient.class);
    }
    assertThat(length()).isEqualTo(BACKLOG);
    assertThat(redis.<String, String>opsForHash().entries(partition.dropped()))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("count", "25", "hot u-0", "15", "hot u-1000", "10"));

    // ...while every admission is still appended, and nothing is trimmed.
    for (int n = 60; n < 300; n++) {
      assertThat(reserve("hot", "A-" + n, "u-" + n, 1))
          .isInstanceOf(AdmissionDecision.Admitted.class);
    }
    List<String[]> entries = entries();
    assertThat(entries).hasSize(340);
    assertThat(entries.stream().filter(e -> e[2].equals("A")).map(e -> e[4]))
        .hasSize(300)
        .doesNotHaveDuplicates()
        .allMatch(id -> id.startsWith("A-"));
    assertThat(entries.stream().filter(e -> e[2].equals("L"))).hasSize(40);

    // The drain makes room (it deletes what it moved); the next decision (sold out now) closes the
    // gap first.
    List<RecordId> moved =
        redis.opsForStream().range(partition.decisions(), Range.unbounded()).stream()
            .map(MapRecord::getId)
            .toList();
    redis.opsForStream().delete(partition.decisions(), moved.toArray(RecordId[]::new));
    assertThat(reserve("hot", "I-after", "u-0", 1))
        .isInstanceOf(AdmissionDecision.Insufficient.class);
    entries = entries();
    assertThat(entries).hasSize(3);
    assertThat(entries.subList(0, 2))
        .extracting(e -> String.join(" ", e[2], e[3], e[4], e[5], e[6], e[7]))
        .containsExactlyInAnyOrder("G u-0 - hot 15 -", "G u-1000 - hot 10 -");
    assertThat(entries.get(2)[2] + " " + entries.get(2)[4]).isEqualTo("I I-after");
    assertThat(entries)
        .as("each with a sequence number of its own, increasing in the stream's order")
        .extracting(e -> Long.parseLong(e[0]))
        .isSorted()
        .doesNotHaveDuplicates();
    assertThat(redis.hasKey(partition.dropped())).isFalse();
  }

  @Test
  void aGapWithNoDecisionAfterItIsClosedOnceTheStreamHasRoom() {
    gate.register("calm", 0, null, 1);
    for (int n = 0; n < BACKLOG + 5; n++) {
      reserve("calm", "R-" + n, n < BACKLOG ? "u-1" : "u-2", 1);
    }
    assertThat(length()).isEqualTo(BACKLOG);
    assertThat(gap()).as("no room yet").containsExactly(0L);

    redis.delete(partition.decisions());
    assertThat(gap()).containsExactly(1L, 1L);
    assertThat(entries())
        .extracting(e -> String.join(" ", e[2], e[3], e[4], e[5], e[6], e[7]))
        .containsExactly("G u-2 - calm 5 -");
    assertThat(redis.hasKey(partition.dropped())).isFalse();
    assertThat(gap()).as("nothing left to close").containsExactly(0L);
  }

  /**
   * A draw's call reads the stream's length and its gap once and counts its own appends: the
   * stream, the gap and the replies are those of the same reservations decided one call each, with
   * a gap closed at the call's first decision and the stream filling up in the middle of it.
   */
  @Test
  void aDrawsCallFillsTheStreamAndClosesItsGapAsOneCallPerReservationWould() {
    Outcome alone = fillAndClose("alone", false);
    Outcome drawn = fillAndClose("drawn", true);

    assertThat(drawn).isEqualTo(alone);
    assertThat(alone.entries()).as("the gap closed first").startsWith("G u-gap - S 2 -");
    assertThat(alone.entries()).hasSize(6);
    assertThat(alone.gap()).isEqualTo(Map.of("count", "6", "S u-0", "6"));
    assertThat(drawn.streamReads())
        .as("one read of the stream's length, one of its gap")
        .isEqualTo(2);
  }

  /** What deciding {@code sku}'s reservations left, with its names replaced by S and R. */
  private record Outcome(
      List<String> entries, Map<String, String> gap, List<String> replies, long streamReads) {

    @Override
    public boolean equals(Object other) {
      return other instanceof Outcome that
          && entries.equals(that.entries)
          && gap.equals(that.gap)
          && replies.equals(that.replies);
    }

    @Override
    public int hashCode() {
      return entries.hashCode();
    }
  }

  /**
   * The stream six short of the backlog and a gap of two refusals open; then three admissions (the
   * first closes the gap) and eight refusals for stock: two fill the stream, six are dropped.
   */
  private Outcome fillAndClose(String sku, boolean inOneDraw) {
    redis.delete(List.of(partition.decisions(), partition.dropped()));
    gate.register(sku, 3, 1, 1);
    for (int n = 0; n < BACKLOG - 6; n++) {
      redis
          .opsForStream()
          .add(partition.decisions(), Map.of("d", n + " 1 I u-x x " + sku + " 1 0"));
    }
    redis.opsForHash().putAll(partition.dropped(), Map.of("count", "2", sku + " u-gap", "2"));
    List<Admission> admissions = new ArrayList<>();
    for (int n = 0; n < 11; n++) {
      admissions.add(
          new Admission(
              sku + "-" + n,
              n < 3 ? "u-" + n : "u-0",
              List.of(new ReservationLine(sku, 1)),
              Duration.ofMinutes(15),
              Instant.now()));
    }
    long readsBefore = calls("xlen") + calls("exists");
    List<AdmissionDecision> decisions =
        inOneDraw ? gate.draw(admissions) : admissions.stream().map(gate::reserve).toList();
    long reads = calls("xlen") + calls("exists") - readsBefore;
    List<String> entries =
        entries().subList(BACKLOG - 6, (int) length()).stream()
            .map(e -> String.join(" ", List.of(e).subList(2, e.length)).replace(sku, "S"))
            .toList();
    Map<String, String> gap = new java.util.TreeMap<>();
    redis
        .<String, String>opsForHash()
        .entries(partition.dropped())
        .forEach((field, value) -> gap.put(field.replace(sku, "S"), value));
    List<String> replies =
        decisions.stream().map(decision -> decision.getClass().getSimpleName()).toList();
    return new Outcome(entries, gap, replies, reads);
  }

  /** How many times Redis has run {@code command}, scripts' calls included. */
  private long calls(String command) {
    java.util.Properties stats =
        redis.execute(
            (org.springframework.data.redis.core.RedisCallback<java.util.Properties>)
                connection -> connection.serverCommands().info("commandstats"));
    String line = stats.getProperty("cmdstat_" + command);
    return line == null ? 0 : Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
  }

  @Test
  void theHighestSequenceOfAStreamIsNotItsLastEntrys() {
    // An admission, then a withdrawal of an older one: the last entry has the older number.
    redis.opsForStream().add(partition.decisions(), Map.of("d", "5120 1 A u-1 R-2 s 1 0"));
    redis.opsForStream().add(partition.decisions(), Map.of("d", "1024 1 W u-0 R-1 s 1 1"));

    assertThat(DecisionDrain.highestInStream(redis, partition)).isEqualTo(5120);
  }

  @Test
  void theHighestSequenceOfALongStreamIsFoundPastItsFirstChunk() {
    List<Map<String, String>> many = new ArrayList<>();
    for (int n = 1; n <= 25_000; n++) {
      many.add(Map.of("d", (n == 17_000 ? 99_999_999 : n) + " 1 I u-1 R-" + n + " s 1 0"));
    }
    many.forEach(entry -> redis.opsForStream().add(partition.decisions(), entry));

    assertThat(DecisionDrain.highestInStream(redis, partition)).isEqualTo(99_999_999);
  }

  private static AdmissionDecision reserve(String sku, String id, String user, int quantity) {
    return gate.reserve(
        new Admission(
            id,
            user,
            List.of(new ReservationLine(sku, quantity)),
            Duration.ofMinutes(15),
            Instant.now()));
  }

  private long length() {
    Long length = redis.opsForStream().size(partition.decisions());
    return length == null ? 0 : length;
  }

  private List<String[]> entries() {
    return redis.opsForStream().range(partition.decisions(), Range.unbounded()).stream()
        .map(entry -> String.valueOf(entry.getValue().get("d")).split(" "))
        .collect(Collectors.toList());
  }

  /** gap.lua as the drain calls it. */
  private List<Object> gap() {
    return redis.execute(
        GateScripts.load("gap"),
        List.of(
            partition.marker(), partition.sequence(), partition.decisions(), partition.dropped()),
        String.valueOf(partition.index()),
        String.valueOf(BACKLOG));
  }
}
