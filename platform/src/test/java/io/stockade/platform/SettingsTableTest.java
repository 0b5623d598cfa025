package io.stockade.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every Stockade setting the code of any module reads is in a table of {@code
 * docs/configuration.md}, under its environment name ({@code STOCKADE_EXPIRY_ENABLED}) or its own
 * ({@code stockade.expiry.enabled}). Read from the sources: {@code ${stockade...}} placeholders
 * ({@code @Value}, {@code @Scheduled}), {@code @ConditionalOnProperty} names, keys looked up in the
 * {@code Environment}, the components of {@code @ConfigurationProperties} records, and the {@code
 * stockade} settings of the modules' YAML files.
 */
class SettingsTableTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(stockade\\.[a-z0-9.-]+)");
  private static final Pattern CONDITION =
      Pattern.compile("@ConditionalOnProperty\\(([^)]*)\\)", Pattern.DOTALL);
  private static final Pattern KEY_LITERAL = Pattern.compile("\"(stockade\\.[a-z0-9.-]+)\"");
  private static final Pattern LOOKUP =
      Pattern.compile("get(?:Required)?Property\\(\\s*(?:([A-Z_]+)\\s*\\+\\s*)?\"([a-z0-9.-]+)\"");
  private static final Pattern PROPERTIES =
      Pattern.compile(
          "@ConfigurationProperties\\((?:prefix\\s*=\\s*)?\"([a-z0-9.-]+)\"\\)[^{]*?record\\s+\\w+\\s*\\(",
          Pattern.DOTALL);

  @Test
  void everySettingTheCodeReadsIsInTheTableOfSettings() {
    Map<String, String> read = settingsRead();
    assertThat(read)
        .as("settings read by the code")
        .containsKeys(
            "stockade.expiry.enabled",
            "stockade.local-infra.data-dir",
            "stockade.rate-limit.user.capacity",
            "stockade.replay.processors");
    Set<String> documented = SettingsTable.documented(ROOT);

    List<String> missing = new ArrayList<>();
    read.forEach(
        (key, where) -> {
          if (!documented.contains(SettingsTable.normal(key))) {
            missing.add(key + " (" + where + ")");
          }
        });
    assertThat(missing).as("settings missing from docs/configuration.md").isEmpty();
  }

  /** Setting to the file that reads it. */
  private static Map<String, String> settingsRead() {
    Map<String, String> keys = new TreeMap<>();
    for (Path file : files("src/main/java", ".java")) {
      String source = read(file);
      String where = ROOT.relativize(file).toString();
      find(PLACEHOLDER, source, 1).forEach(key -> keys.put(key, where));
      Matcher condition = CONDITION.matcher(source);
      while (condition.find()) {
        find(KEY_LITERAL, condition.group(1), 1).forEach(key -> keys.put(key, where));
      }
      Matcher lookup = LOOKUP.matcher(source);
      while (lookup.find()) {
        String key =
            lookup.group(1) == null
                ? lookup.group(2)
                : constant(source, lookup.group(1)) + lookup.group(2);
        if (key.startsWith("stockade.")) {
          keys.put(key, where);
        }
      }
      Matcher properties = PROPERTIES.matcher(source);
      while (properties.find()) {
        List<String> components = new ArrayList<>();
        components(source, properties.end(), properties.group(1), components);
        assertThat(components).as("the settings of %s", where).isNotEmpty();
        components.forEach(key -> keys.put(key, where));
      }
    }
    for (Path file : files("src/main/resources", ".yml")) {
      for (Object document : new Yaml().loadAll(read(file))) {
        if (document instanceof Map<?, ?> map && map.get("stockade") != null) {
          flatten("stockade", map.get("stockade"), ROOT.relativize(file).toString(), keys);
        }
      }
    }
    return keys;
  }

  /**
   * The components of the record whose list starts at {@code start}, as settings under {@code
   * prefix}: a component whose type is a record of the same file stands for that record's
   * components, a map of them for its entries ({@code <name>}).
   */
  private static void components(String source, int start, String prefix, List<String> keys) {
    int depth = 1;
    int end = start;
    while (depth > 0) {
      char c = source.charAt(end++);
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    String list = source.substring(start, end - 1).replaceAll("@\\w+(\\([^)]*\\))?", " ");
    for (String component : splitTopLevel(list)) {
      String[] words = component.trim().split("\\s+");
      if (words.length < 2) {
        continue;
      }
      String name = prefix + "." + kebab(words[words.length - 1]);
      String type = String.join(" ", List.of(words).subList(0, words.length - 1));
      Matcher map = Pattern.compile("Map<\\s*String\\s*,\\s*(\\w+)\\s*>").matcher(type);
      boolean isMap = map.find();
      String nested = isMap ? map.group(1) : type.trim();
      String key = isMap ? name + ".<name>" : name;
      Matcher record = Pattern.compile("record\\s+" + nested + "\\s*\\(").matcher(source);
      if (record.find()) {
        components(source, record.end(), key, keys);
      } else {
        keys.add(key);
      }
    }
  }

  private static List<String> splitTopLevel(String list) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    StringBuilder part = new StringBuilder();
    for (char c : list.toCharArray()) {
      depth += c == '<' ? 1 : c == '>' ? -1 : 0;
      if (c == ',' && depth == 0) {
        parts.add(part.toString());
        part.setLength(0);
      } else {
        part.append(c);
      }
    }
    parts.add(part.toString());
    return parts;
  }

  private static void flatten(String prefix, Object value, String where, Map<String, String> keys) {
    if (value instanceof Map<?, ?> map) {
      map.forEach((name, child) -> flatten(prefix + "." + name, child, where, keys));
    } else {
      keys.put(prefix, where);
    }
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private static String constant(String source, String name) {
    Matcher constant = Pattern.compile("\\b" + name + "\\s*=\\s*\"([^\"]*)\"").matcher(source);
    assertThat(constant.find()).as("the constant %s", name).isTrue();
    return constant.group(1);
  }

  private static List<String> find(Pattern pattern, String text, int group) {
    List<String> found = new ArrayList<>();
    Matcher matcher = pattern.matcher(text);
    while (matcher.find()) {
      found.add(matcher.group(group));
    }
    return found;
  }

  /** The files of every module's {@code folder} ending with {@code suffix}. */
  private static List<Path> files(String folder, String suffix) {
    try (Stream<Path> all = Files.walk(ROOT)) {
      return all.filter(file -> file.toString().endsWith(suffix))
          .filter(file -> ROOT.relativize(file).toString().contains(folder + "/"))
          .filter(file -> !ROOT.relativize(file).toString().contains("target/"))
          .filter(file -> !ROOT.relativize(file).startsWith(".stockade"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
