package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docker/service.Dockerfile} builds with the whole reactor in sight: Maven reads every
 * module the root POM lists (recursively) before {@code -pl SERVICE -am} picks what to build, so an
 * image build that cannot see one module's {@code pom.xml} fails. Read statically (no Docker engine
 * needed): the build stage's {@code COPY} sources, less what {@code
 * service.Dockerfile.dockerignore} excludes, must hold every module's {@code pom.xml} and {@code
 * src/}.
 */
class ImageBuildTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
  private static final Pattern COPY =
      Pattern.compile("^COPY\\s+(?!--from)(?:--\\S+\\s+)*(.+)$", Pattern.MULTILINE);

  @Test
  void theImageBuildSeesEveryModuleOfTheReactor() {
    List<String> modules = modules("");
    assertThat(modules)
        .as("the reactor's modules")
        .contains("shared-api", "command-side", "query-side", "system-tests");

    Context context =
        new Context(
            read(ROOT.resolve("docker/service.Dockerfile")),
            read(ROOT.resolve("docker/service.Dockerfile.dockerignore")));

    assertThat(context.missing(modules)).as("module files the image build would not see").isEmpty();
  }

  @Test
  void aDockerfileThatCopiesModulesOneByOneMissesTheOnesItDoesNotName() {
    Context oneByOne =
        new Context(
            """
            FROM eclipse-temurin:17-jdk AS build
            COPY pom.xml mvnw ./
            COPY shared-api/ shared-api/
            COPY command-side/pom.xml command-side/
            FROM eclipse-temurin:17-jre
            COPY --from=build /src/command-side/target/command-side.jar /app/app.jar
            """,
            "");

    assertThat(oneByOne.missing(List.of("shared-api", "command-side", "bench/http-bench")))
        .containsExactly("command-side/src/", "bench/http-bench/pom.xml", "bench/http-bench/src/");
  }

  @Test
  void anIgnoredModuleIsMissingThoughTheTreeIsCopied() {
    String wholeTree = "FROM eclipse-temurin:17-jdk AS build\nCOPY . ./\n";

    assertThat(new Context(wholeTree, "**/target/\nbench/\n").missing(List.of("bench/http-bench")))
        .containsExactly("bench/http-bench/pom.xml", "bench/http-bench/src/");
    assertThat(
            new Context(wholeTree, "bench/\n!bench/http-bench/\n")
                .missing(List.of("bench/http-bench")))
        .isEmpty();
    assertThat(new Context(wholeTree, "**/src\n").missing(List.of("platform")))
        .containsExactly("platform/src/");
  }

  /** The modules a POM lists, and theirs, as paths from the repository's root. */
  private static List<String> modules(String parent) {
    String pom = read(ROOT.resolve(parent).resolve("pom.xml"));
    List<String> found = new ArrayList<>();
    Matcher module = MODULE.matcher(pom);
    while (module.find()) {
      String path = parent.isEmpty() ? module.group(1) : parent + "/" + module.group(1);
      found.add(path);
      found.addAll(modules(path));
    }
    return found;
  }

  /** What the build stage of a Dockerfile copies from the context, less what is ignored. */
  private record Context(String dockerfile, String dockerignore) {

    /** Each module's {@code pom.xml} and {@code src/} that the build stage would not see. */
    List<String> missing(List<String> modules) {
      List<String> missing = new ArrayList<>();
      for (String module : modules) {
        for (String file : List.of(module + "/pom.xml", module + "/src/")) {
          if (!seen(file)) {
            missing.add(file);
          }
        }
      }
      return missing;
    }

    private boolean seen(String path) {
      return copied(path) && !ignored(path);
    }

    private boolean copied(String path) {
      String stage = dockerfile.split("(?m)^FROM\\s", 3)[1];
      Matcher copy = COPY.matcher(stage);
      while (copy.find()) {
        String[] arguments = copy.group(1).trim().split("\\s+");
        for (int i = 0; i < arguments.length - 1; i++) {
          String source = arguments[i].replaceAll("^\\./?", "").replaceAll("/$", "");
          if (source.isEmpty()
              || path.equals(source)
              || path.equals(source + "/")
              || path.startsWith(source + "/")) {
            return true;
          }
        }
      }
      return false;
    }

    /** Docker's rules: the last pattern that matches the path or a folder above it decides. */
    private boolean ignored(String path) {
      String plain = path.replaceAll("/$", "");
      boolean ignored = false;
      for (String line : dockerignore.lines().map(String::trim).toList()) {
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        boolean exception = line.startsWith("!");
        Pattern pattern = glob(exception ? line.substring(1) : line);
        if (matchesItOrAFolderAbove(pattern, plain)) {
          ignored = !exception;
        }
      }
      return ignored;
    }

    private static boolean matchesItOrAFolderAbove(Pattern pattern, String path) {
      for (String candidate = path;
          !candidate.isEmpty();
          candidate =
              candidate.contains("/") ? candidate.substring(0, candidate.lastIndexOf('/')) : "") {
        if (pattern.matcher(candidate).matches()) {
          return true;
        }
      }
      return false;
    }

    private static Pattern glob(String glob) {
      String trimmed = glob.replaceAll("^/+", "").replaceAll("/+$", "");
      StringBuilder regex = new StringBuilder();
      for (int i = 0; i < trimmed.length(); i++) {
        char c = trimmed.charAt(i);
        if (trimmed.startsWith("**/", i)) {
          regex.append("(?:.*/)?");
          i += 2;
        } else if (trimmed.startsWith("**", i)) {
          regex.append(".*");
          i++;
        } else if (c == '*') {
          regex.append("[^/]*");
        } else if (c == '?') {
          regex.append("[^/]");
        } else {
          regex.append(Pattern.quote(String.valueOf(c)));
        }
      }
      return Pattern.compile(regex.toString());
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
