package io.stockade.command.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Scripts cannot include each other, so every gate script repeats the epoch check that keeps a
 * closed gate closed (the marker's epoch against the caller's). Its code must be the same in every
 * script: a script that checked it otherwise could admit on a gate being rebuilt. So must the
 * helpers they repeat, and the checks of an admission's sequence and epoch.
 */
class GateScriptPreludeTest {

  private static final Path SCRIPTS = Path.of("src/main/lua");

  /** The scripts that run in a gate's epoch: all but the rate limits' and the rebuild's own. */
  private static final List<String> NOT_IN_AN_EPOCH =
      List.of("ratelimit.lua", "restore.lua", "gap.lua");

  /**
   * The draw's loop: loaded after reserve.lua's whole text, it checks the epoch once for the call
   * and hands the marker on, and reserve.lua's own prelude checks it again for each reservation.
   */
  private static final List<String> AROUND_RESERVE = List.of("draw.lua");

  private static final String PRELUDE_START = "-- The gate's epoch comes first";

  @Test
  void everyGateScriptChecksTheEpochWithTheSameCodeBeforeAnythingElse() throws IOException {
    Map<String, List<String>> preludes = new TreeMap<>();
    try (Stream<Path> files = Files.list(SCRIPTS)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
        String name = file.getFileName().toString();
        if (!NOT_IN_AN_EPOCH.contains(name) && !AROUND_RESERVE.contains(name)) {
          preludes.put(name, prelude(Files.readAllLines(file), name));
        }
      }
    }

    assertThat(preludes).hasSizeGreaterThanOrEqualTo(9);
    List<String> reserve = preludes.get("reserve.lua");
    assertThat(reserve)
        .containsExactly(
            "local marker = table.remove(KEYS, 1)",
            "local gate_epoch = table.remove(ARGV, 1)",
            "if marker == nil or gate_epoch == nil or redis.call('HGET', marker, 'epoch') ~="
                + " gate_epoch then",
            "  return { -1 }",
            "end");
    preludes.forEach(
        (name, prelude) ->
            assertThat(prelude).as("the epoch check of %s", name).isEqualTo(reserve));
  }

  /**
   * The helpers the scripts repeat, since they cannot share them: wherever one is defined, its code
   * is reserve.lua's (integer parsing with the 2^53 - 1 bound Lua's numbers hold exactly, the ids'
   * check, the rate limits' token buckets, which ratelimit.lua takes alone and reserve.lua with an
   * admission, the closing of a gap of dropped refusals, which gap.lua does alone and reserve.lua
   * before a decision), and no script parses an integer argument its own way instead.
   */
  @Test
  void everyScriptThatDefinesAHelperDefinesItAsReserveDoes() throws IOException {
    Map<String, String> scripts = new TreeMap<>();
    try (Stream<Path> files = Files.list(SCRIPTS)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
        scripts.put(file.getFileName().toString(), Files.readString(file));
      }
    }
    String reserve = scripts.get("reserve.lua");
    for (String helper :
        List.of(
            "local MAX = ",
            "local function integer(",
            "local function valid_id(",
            "local function token_buckets(",
            "local function close_gap(")) {
      String expected = block(reserve, helper);
      assertThat(expected).as("reserve.lua defines %s", helper).isNotNull();
      List<String> defining =
          scripts.entrySet().stream()
              .filter(script -> script.getValue().contains(helper))
              .map(Map.Entry::getKey)
              .toList();
      assertThat(defining).as("scripts defining %s", helper).hasSizeGreaterThanOrEqualTo(2);
      for (String name : defining) {
        assertThat(block(scripts.get(name), helper))
            .as("%s in %s", helper, name)
            .isEqualTo(expected);
      }
    }
    scripts.forEach(
        (name, script) -> {
          if (script.contains("local function integer(")) {
            assertThat(script).as("%s defines MAX for integer()", name).contains("local MAX = ");
          }
          assertThat(script)
              .as("%s parses a bounded integer argument by integer()", name)
              .doesNotContainPattern("tonumber\\([a-z_]+\\) > 9007199254740991");
        });
    assertThat(scripts.values().stream().filter(s -> s.contains("local function integer(")))
        .hasSizeGreaterThanOrEqualTo(8);
  }

  /**
   * The scripts that act on one admission (extend, recorded, transition, withdraw) name it by its
   * sequence and the gate epoch it was admitted in, and check both arguments with the same code:
   * the sequence a non-negative integer, the epoch an integer, each as the digits the record holds
   * (compared as text with the intent's), whichever arguments they come in.
   */
  @Test
  void everyScriptOfOneAdmissionChecksItsSequenceAndEpochAlike() throws IOException {
    Map<String, String> checks = new TreeMap<>();
    try (Stream<Path> files = Files.list(SCRIPTS)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
        String script = Files.readString(file);
        if (script.contains("\nlocal admission_epoch = ")) {
          String sequence = block(script, "local sequence = ", 4);
          String epoch = block(script, "local admission_epoch = ", 4);
          assertThat(sequence).as("%s checks the sequence", file).isNotNull();
          checks.put(
              file.getFileName().toString(),
              (sequence + "\n" + epoch).replaceAll("ARGV\\[\\d+\\]", "ARGV[n]"));
        }
      }
    }

    assertThat(checks.keySet())
        .containsExactlyInAnyOrder("extend.lua", "recorded.lua", "transition.lua", "withdraw.lua");
    assertThat(checks.get("extend.lua"))
        .isEqualTo(
            String.join(
                "\n",
                "local sequence = ARGV[n]",
                "if sequence == nil or not string.match(sequence, '^%d+$') then",
                "  return redis.error_reply('ERR_ARGUMENT sequence')",
                "end",
                "local admission_epoch = ARGV[n]",
                "if admission_epoch == nil or not string.match(admission_epoch, '^%-?%d+$') then",
                "  return redis.error_reply('ERR_ARGUMENT admission epoch')",
                "end"));
    checks.forEach(
        (name, check) ->
            assertThat(check)
                .as("the admission's checks in %s", name)
                .isEqualTo(checks.get("extend.lua")));
  }

  /** {@code count} lines of the script from the one that starts with {@code start}. */
  private static String block(String script, String start, int count) {
    int at = script.indexOf("\n" + start);
    if (at < 0) {
      return null;
    }
    return String.join("\n", script.substring(at + 1).lines().limit(count).toList());
  }

  /** The helper's code, from its first line to the {@code end} that closes it (or its one line). */
  private static String block(String script, String start) {
    int at = script.indexOf("\n" + start);
    if (at < 0) {
      return null;
    }
    List<String> lines = script.substring(at + 1).lines().toList();
    if (!start.startsWith("local function")) {
      return lines.get(0);
    }
    int end = lines.indexOf("end");
    return String.join("\n", lines.subList(0, end + 1));
  }

  /**
   * The code of the script's epoch check: from its comment to the first {@code end}, comments left
   * out; and no code comes before it.
   */
  private static List<String> prelude(List<String> lines, String name) {
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(PRELUDE_START)) {
        start = i;
        break;
      }
    }
    assertThat(start).as("%s has the epoch check", name).isNotNegative();
    assertThat(lines.subList(0, start))
        .as("%s: only its header before the epoch check", name)
        .allMatch(line -> line.isBlank() || line.startsWith("--"));
    List<String> code =
        lines.subList(start, lines.size()).stream()
            .filter(line -> !line.startsWith("--"))
            .takeWhile(line -> !line.equals("end"))
            .toList();
    return Stream.concat(code.stream(), Stream.of("end")).toList();
  }
}
