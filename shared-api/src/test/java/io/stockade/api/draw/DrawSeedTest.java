package io.stockade.api.draw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The draw's arithmetic against values openssl computed, and against the project's own checker,
 * {@code tools/verify-draw} (openssl and jq, none of this code): both agree on a draw, and both
 * find a draw tampered with.
 */
class DrawSeedTest {

  /** The bytes 0x00 to 0x1f. */
  private static final DrawSeed SEED =
      new DrawSeed("000102030405060708090A0B0C0D0E0F101112131415161718191a1b1c1d1e1f");

  @Test
  void theCommitmentAndTheTicketsAreWhatOpensslComputes() {
    // printf "$(sed 's/../\\x&/g' <<<"$seed")" | openssl dgst -sha256
    assertThat(SEED.commitment())
        .isEqualTo("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
    // printf '%s' "$id" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$seed"
    assertThat(SEED.ticket("R-1"))
        .isEqualTo("1dfa36b296405e0551c62a29d582e883ccb0d367c630d343774dbfcfbca9e313");
    assertThat(SEED.ticket("R-2"))
        .isEqualTo("749353fd44e26a25fb28da6789000999e4d5257b7f0e3ca6bfd00234bdb29c05");
    assertThat(SEED.ticket("Ü-3"))
        .as("the id's UTF-8 bytes")
        .isEqualTo("905760edfc83a093b2d0e0cdecfcf8356b1d298c969b8d06dae0d21ea0bd6396");
  }

  @Test
  void theOrderSortsTheIdsByTicketWhateverOrderTheyArriveIn() {
    List<String> ids = ids(500);
    List<String> order = SEED.order(ids);
    assertThat(order).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(order.stream().map(id -> SEED.ticket(id)).toList()).isSorted();
    assertThat(order).as("not the arrival order").isNotEqualTo(ids);
    List<String> reversed = new ArrayList<>(ids);
    java.util.Collections.reverse(reversed);
    assertThat(SEED.order(reversed)).isEqualTo(order);
    assertThat(DrawSeed.random().order(ids)).as("another seed, another order").isNotEqualTo(order);
  }

  @Test
  void aSeedIsThirtyTwoFreshBytesOfLowercaseHex() {
    DrawSeed one = DrawSeed.random();
    assertThat(one.hex()).matches("[0-9a-f]{64}");
    assertThat(DrawSeed.random()).isNotEqualTo(one);
    assertThat(SEED.hex()).isEqualTo(SEED.hex().toLowerCase());
    assertThatThrownBy(() -> new DrawSeed("00".repeat(16)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not 16");
    assertThatThrownBy(() -> new DrawSeed("zz".repeat(32)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPublishedDrawIsCheckedAndEveryTamperingFound() {
    DrawSeed seed = DrawSeed.random();
    String seedHex = seed.hex();
    String commitment = seed.commitment();
    List<String> order = seed.order(ids(100));
    assertThat(DrawSeed.check(seedHex, commitment, order)).isEmpty();
    assertThat(DrawSeed.check(seedHex.toUpperCase(), commitment.toUpperCase(), order)).isEmpty();

    assertThat(DrawSeed.check(seedHex, commitment, swapped(order, 10, 11)))
        .get()
        .asString()
        .startsWith("position 11 holds ");
    assertThat(DrawSeed.check(DrawSeed.random().hex(), commitment, order))
        .get()
        .asString()
        .contains("not the commitment");
    assertThat(DrawSeed.check(seedHex.substring(2), commitment, order))
        .get()
        .asString()
        .contains("not 31");
    assertThat(DrawSeed.check("zz" + seedHex.substring(2), commitment, order))
        .get()
        .asString()
        .contains("the seed is not one");
  }

  @Test
  void theShippedCheckerAgreesWithThisCode(@TempDir Path dir) throws Exception {
    DrawSeed seed = DrawSeed.random();
    List<String> ids = ids(150);
    ids.add("Ü-\"quoted\" id");
    List<String> order = seed.order(ids);
    Path draw = dir.resolve("draw.json");
    Files.writeString(draw, json(seed, seed.commitment(), order, order.size()));
    Checked fine = verify(draw, order.get(42));
    assertThat(fine.exit()).as(fine.output()).isZero();
    assertThat(fine.output())
        .contains("the " + order.size() + " queued reservations are in ticket order")
        .contains(order.get(42) + " was drawn at position 43 of " + order.size());

    Files.writeString(draw, json(seed, seed.commitment(), swapped(order, 70, 71), order.size()));
    Checked swapped = verify(draw, null);
    assertThat(swapped.exit()).as(swapped.output()).isEqualTo(1);
    assertThat(swapped.output()).startsWith("FAULT: position 72 ");

    Files.writeString(draw, json(DrawSeed.random(), seed.commitment(), order, order.size()));
    Checked otherSeed = verify(draw, null);
    assertThat(otherSeed.exit()).isEqualTo(1);
    assertThat(otherSeed.output()).contains("not the commitment");

    Files.writeString(
        draw, json(seed, seed.commitment(), order.subList(1, order.size()), order.size()));
    Checked dropped = verify(draw, null);
    assertThat(dropped.exit()).isEqualTo(1);
    assertThat(dropped.output()).contains("the draw says " + order.size() + " were queued");

    Files.writeString(
        draw,
        """
        {"skuId": "S-1", "drawCommitment": "%s", "seed": null, "queued": 3, "order": []}"""
            .formatted(seed.commitment()));
    Checked undecided = verify(draw, null);
    assertThat(undecided.exit()).isEqualTo(2);
    assertThat(undecided.output()).contains("not decided yet");
  }

  private record Checked(int exit, String output) {}

  private static Checked verify(Path draw, String mine) throws IOException, InterruptedException {
    Path script = Path.of("..", "tools", "verify-draw").toAbsolutePath().normalize();
    List<String> command = new ArrayList<>(List.of(script.toString(), draw.toString()));
    if (mine != null) {
      command.add(mine);
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Checked(process.waitFor(), output);
  }

  private static String json(DrawSeed seed, String commitment, List<String> order, int queued) {
    return """
        {"skuId": "S-1", "opensAt": "2026-12-24T10:00:00Z", "drawCommitment": "%s", "seed": "%s",
         "queued": %d, "admitted": 0, "order": [%s]}"""
        .formatted(
            commitment,
            seed.hex(),
            queued,
            order.stream()
                .map(id -> "\"" + id.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                .collect(Collectors.joining(", ")));
  }

  private static List<String> ids(int count) {
    return IntStream.rangeClosed(1, count)
        .mapToObj(n -> "R-" + n)
        .collect(Collectors.toCollection(ArrayList::new));
  }

  private static List<String> swapped(List<String> order, int i, int j) {
    List<String> copy = new ArrayList<>(order);
    copy.set(i, order.get(j));
    copy.set(j, order.get(i));
    return copy;
  }
}
