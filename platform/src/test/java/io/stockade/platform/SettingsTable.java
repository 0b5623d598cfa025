package io.stockade.platform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The names of docs/configuration.md's tables of settings, for the tests that check names. */
final class SettingsTable {

  private static final Pattern NAME_IN_CELL = Pattern.compile("`([A-Za-z0-9_.<>-]+)`");

  private SettingsTable() {}

  /**
   * The names of the first column of every table of docs/configuration.md, normalised; a name
   * written as the end of the one before it ({@code SPRING_DATASOURCE_URL} (+ {@code _USERNAME}),
   * {@code stockade.x.capacity}, {@code .refill-per-second}) stands for that name with its end
   * replaced.
   */
  static Set<String> documented(Path root) {
    Set<String> names = new TreeSet<>();
    String text;
    try {
      text = Files.readString(root.resolve("docs/configuration.md"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String row : text.lines().toList()) {
      if (!row.startsWith("| `")) {
        continue;
      }
      String full = null;
      Matcher name = NAME_IN_CELL.matcher(row.split("\\|")[1]);
      while (name.find()) {
        String written = name.group(1);
        if ((written.startsWith("_") || written.startsWith(".")) && full != null) {
          String separator = written.substring(0, 1);
          String[] parts = full.split(Pattern.quote(separator));
          for (int kept = 1; kept < parts.length; kept++) {
            names.add(normal(String.join(separator, List.of(parts).subList(0, kept)) + written));
          }
        } else {
          full = written;
          names.add(normal(written));
        }
      }
    }
    return names;
  }

  /**
   * {@code stockade.warm-up.max-duration} and {@code STOCKADE_WARMUP_MAXDURATION} alike, as relaxed
   * binding takes an environment variable.
   */
  static String normal(String name) {
    return name.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9<>]", "");
  }
}
