package io.stockade.platform.testing;

import io.stockade.api.StreamFold;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds, in a module's sources, the type tests on a concrete event that bypass the streams' folds:
 * {@code instanceof StockReserved}, {@code StockReserved.class::isInstance}. ArchUnit reads byte
 * code, where an {@code instanceof} is no dependency it can name; the sources say it plainly.
 */
public final class EventTypeTests {

  private static final Pattern TYPE_TEST =
      Pattern.compile(
          "instanceof\\s+(?:[\\w.]+\\.)?("
              + names()
              + ")\\b|\\b("
              + names()
              + ")\\.class\\s*::\\s*isInstance\\b");

  private EventTypeTests() {}

  /** Every type test on a concrete event under {@code sources}, as "file:line: text". */
  public static List<String> in(Path sources) {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          Matcher matcher = TYPE_TEST.matcher(lines.get(i));
          if (matcher.find()) {
            found.add(sources.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  private static String names() {
    return StreamFold.EVENTS.values().stream()
        .map(Class::getSimpleName)
        .collect(Collectors.joining("|"));
  }
}
