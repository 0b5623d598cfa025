package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate's Lua scripts are assembled at build time (src/build/java/AssembleLuaScripts.java) from
 * one source per operation in src/main/lua and the parts they include (src/main/lua/parts), so that
 * the epoch check and the helpers are written once: the scripts the gate loads from the classpath
 * are the assembly of today's sources, every gate script checks the epoch before anything else, and
 * no helper is defined twice among the sources.
 */
class GateScriptAssemblyTest {

  private static final Path SOURCES = Path.of("src/main/lua");
  private static final Path ASSEMBLER = Path.of("src/build/java/AssembleLuaScripts.java");
  private static final String EPOCH_PART = "parts/epoch.lua";

  /** The scripts that run outside a gate session's epoch: the rate limits' and the rebuild's. */
  private static final List<String> NOT_IN_AN_EPOCH =
      List.of("ratelimit.lua", "restore.lua", "gap.lua");

  /**
   * The draw checks the epoch once for the call and hands the marker on: its reserve() begins with
   * the epoch part, as reserve.lua does, for each reservation.
   */
  private static final String DRAW = "draw.lua";

  /**
   * A top-level helper function or constant: {@code local function name(} or {@code local NAME =}.
   */
  private static final Pattern DEFINITION =
      Pattern.compile("(?m)^local function ([A-Za-z_][A-Za-z0-9_]*)\\(|^local ([A-Z_]+) =");

  @Test
  void theLoadedScriptsAreOneAssembledFilePerOperationWithNoDirectiveLeft() throws Exception {
    Map<String, String> loaded = loadedScripts();
    Map<String, String> sources = operationSources();

    assertThat(loaded.keySet()).isEqualTo(sources.keySet());
    assertThat(loaded).hasSizeGreaterThanOrEqualTo(17);
    loaded.forEach(
        (name, script) -> {
          assertThat(script).as(name).doesNotContain("--#");
          String header =
              String.join(
                  "\n",
                  sources
                      .get(name)
                      .lines()
                      .takeWhile(line -> line.startsWith("--") && !line.startsWith("--#"))
                      .toList());
          assertThat(header).as("%s has a header", name).startsWith("-- ");
          assertThat(script).as("%s starts with its header", name).startsWith(header + "\n");
        });
  }

  @Test
  void everyIncludedPartIsInlinedWholeAfterALineNamingIt() throws Exception {
    Map<String, String> loaded = loadedScripts();
    operationSources()
        .forEach(
            (name, source) ->
                source
                    .lines()
                    .filter(line -> line.startsWith("--#include "))
                    .forEach(
                        line -> {
                          String part = line.substring("--#include ".length());
                          assertThat(loaded.get(name))
                              .as("%s includes %s", name, part)
                              .contains(
                                  "-- Included from " + part + ":\n" + partCode(part, loaded));
                        }));
  }

  @Test
  void everyGateScriptChecksTheEpochWithTheEpochPartBeforeAnythingElse() throws Exception {
    Map<String, String> loaded = loadedScripts();
    String epoch = read(SOURCES.resolve(EPOCH_PART));
    assertThat(epoch)
        .contains(
            String.join(
                "\n",
                "local marker = table.remove(KEYS, 1)",
                "local gate_epoch = table.remove(ARGV, 1)",
                "if marker == nil or gate_epoch == nil or redis.call('HGET', marker, 'epoch') ~="
                    + " gate_epoch then",
                "  return { -1 }",
                "end"));
    List<String> inAnEpoch = new ArrayList<>();
    loaded.forEach(
        (name, script) -> {
          if (NOT_IN_AN_EPOCH.contains(name)) {
            assertThat(script).as(name).doesNotContain("-- Included from " + EPOCH_PART);
            return;
          }
          String body = script;
          if (name.equals(DRAW)) {
            int function = script.indexOf("\nlocal function reserve(KEYS, ARGV)\n");
            assertThat(function).as("draw.lua defines reserve()").isPositive();
            body = script.substring(script.indexOf('\n', function + 1) + 1);
          }
          List<String> before =
              body.lines()
                  .takeWhile(line -> !line.equals("-- Included from " + EPOCH_PART + ":"))
                  .toList();
          assertThat(before.size())
              .as("%s includes the epoch part", name)
              .isLessThan((int) body.lines().count());
          if (!name.equals(DRAW)) {
            assertThat(before)
                .as("%s: only its header before the epoch check", name)
                .allMatch(line -> line.isBlank() || line.startsWith("--"));
          } else {
            assertThat(before).as("draw.lua's reserve() begins with the epoch check").isEmpty();
          }
          assertThat(body.substring(body.indexOf("-- Included from " + EPOCH_PART + ":\n")))
              .as(name)
              .startsWith("-- Included from " + EPOCH_PART + ":\n" + epoch);
          inAnEpoch.add(name);
        });
    assertThat(inAnEpoch).hasSizeGreaterThanOrEqualTo(14).contains("reserve.lua", DRAW);
  }

  /**
   * One thing, one place: a helper function or a constant is defined in one source file only, an
   * operation's script or the part that scripts include.
   */
  @Test
  void noHelperIsDefinedInTwoSourceFiles() throws IOException {
    Map<String, List<String>> definedIn = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
        Matcher definition = DEFINITION.matcher(read(file));
        while (definition.find()) {
          String name = definition.group(1) != null ? definition.group(1) : definition.group(2);
          definedIn
              .computeIfAbsent(name, helper -> new ArrayList<>())
              .add(SOURCES.relativize(file).toString());
        }
      }
    }
    assertThat(definedIn)
        .containsKeys(
            "integer", "valid_id", "time_ms", "token_buckets", "close_gap", "admission_arguments");
    definedIn.forEach(
        (helper, files) -> assertThat(files).as("files defining %s", helper).hasSize(1));
  }

  /** The assembler run on today's sources writes exactly the scripts on the classpath. */
  @Test
  void theLoadedScriptsAreTheAssemblyOfTodaysSources(@TempDir Path output) throws Exception {
    Result result = assemble(SOURCES, output);

    assertThat(result.exitCode()).as(result.output()).isZero();
    Map<String, String> assembled = new TreeMap<>();
    try (Stream<Path> files = Files.list(output)) {
      for (Path file : files.toList()) {
        assembled.put(file.getFileName().toString(), read(file));
      }
    }
    assertThat(assembled).isEqualTo(loadedScripts());
  }

  @Test
  void anIncludeOfAMissingPartFailsTheAssembly(@TempDir Path sources, @TempDir Path output)
      throws Exception {
    Files.writeString(sources.resolve("op.lua"), "-- op\n--#include parts/gone.lua\nreturn 1\n");

    Result result = assemble(sources, output);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output()).contains("op.lua includes parts/gone.lua, which is not in");
  }

  @Test
  void anIncludeCycleFailsTheAssembly(@TempDir Path sources, @TempDir Path output)
      throws Exception {
    Files.createDirectories(sources.resolve("parts"));
    Files.writeString(sources.resolve("op.lua"), "-- op\n--#include parts/a.lua\nreturn 1\n");
    Files.writeString(sources.resolve("parts/a.lua"), "--#include parts/b.lua\n");
    Files.writeString(sources.resolve("parts/b.lua"), "--#include parts/a.lua\n");

    Result result = assemble(sources, output);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output())
        .contains("include cycle: op.lua -> parts/a.lua -> parts/b.lua -> parts/a.lua");
  }

  /** The code a part adds where it is included: its own text, its includes assembled. */
  private static String partCode(String part, Map<String, String> loaded) {
    try {
      String text = read(SOURCES.resolve(part));
      StringBuilder code = new StringBuilder();
      for (String line : text.lines().toList()) {
        if (line.startsWith("--#include ")) {
          String inner = line.substring("--#include ".length());
          code.append("-- Included from ").append(inner).append(":\n");
          code.append(partCode(inner, loaded));
        } else {
          code.append(line).append('\n');
        }
      }
      return code.toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Result(int exitCode, String output) {}

  private static Result assemble(Path sources, Path output) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process process =
        new ProcessBuilder(
                java.toString(), ASSEMBLER.toString(), sources.toString(), output.toString())
            .redirectErrorStream(true)
            .start();
    String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(process.exitValue(), text);
  }

  /** The scripts as the gate reads them: lua/*.lua on the classpath. */
  private static Map<String, String> loadedScripts() throws IOException, URISyntaxException {
    Path directory =
        Path.of(
            Objects.requireNonNull(GateScriptAssemblyTest.class.getClassLoader().getResource("lua"))
                .toURI());
    Map<String, String> scripts = new TreeMap<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
        scripts.put(file.getFileName().toString(), read(file));
      }
    }
    return scripts;
  }

  private static Map<String, String> operationSources() throws IOException {
    Map<String, String> sources = new TreeMap<>();
    try (Stream<Path> files = Files.list(SOURCES)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
        sources.put(file.getFileName().toString(), read(file));
      }
    }
    return sources;
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
