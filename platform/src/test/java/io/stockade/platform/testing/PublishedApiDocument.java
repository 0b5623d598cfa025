package io.stockade.platform.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.springframework.http.ResponseEntity;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A service's OpenAPI document as published in {@code docs/openapi/<service>.json}: the running
 * service's {@code /v3/api-docs} must equal it, so that a change to the API is a reviewed change to
 * that file. With {@code -Dstockade.openapi.write=true} the check writes the file instead.
 *
 * <p>The file is the document made independent of the run: without {@code servers} (springdoc fills
 * it from the request's host and port, a random one in the tests; a caller knows where it sent the
 * request), every object's members sorted by name, pretty-printed with {@code \n} line ends and a
 * final newline, so that its diffs are readable.
 */
public final class PublishedApiDocument {

  /** The system property that writes the files instead of comparing them. */
  public static final String WRITE = "stockade.openapi.write";

  private static final int MOST_DIFFERENCES = 40;
  private static final int MOST_VALUE_CHARS = 160;
  private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9_$-]+");

  private static final ObjectWriter WRITER = writer();

  private PublishedApiDocument() {}

  /**
   * Compares the {@code /v3/api-docs} of the service on {@code port} with {@code
   * docs/openapi/<service>.json}, or writes that file when {@value #WRITE} is {@code true}.
   *
   * @param service the module's name, which is also the file's ({@code command-side})
   */
  public static void check(int port, String service) {
    ResponseEntity<JsonNode> docs = new ApiClient(port).withoutToken().get("/v3/api-docs");
    assertThat(docs.getStatusCode().value()).as("GET /v3/api-docs").isEqualTo(200);
    Path file = Path.of("..", "docs", "openapi", service + ".json");
    String published = text(docs.getBody());
    if (Boolean.getBoolean(WRITE)) {
      write(file, published);
      System.out.println("Wrote " + file.normalize() + " from the running " + service);
      return;
    }
    String committed = read(file, service);
    if (!committed.equals(published)) {
      throw new AssertionError(differences(service, committed, published));
    }
  }

  /** The text of the file for this document: normalized, sorted, pretty-printed. */
  public static String text(JsonNode document) {
    return WRITER.writeValueAsString(normalized(document)) + "\n";
  }

  /**
   * What a failed check says: which members differ between the committed file's text and the
   * running service's, and the command that rewrites the file.
   */
  public static String differences(String service, String committed, String published) {
    List<String> found = new ArrayList<>();
    JsonNode before = StrictJson.read(committed);
    JsonNode after = StrictJson.read(published);
    compare(before, after, "", found);
    StringBuilder message =
        new StringBuilder("The running ")
            .append(service)
            .append("'s /v3/api-docs differs from docs/openapi/")
            .append(service)
            .append(".json");
    if (found.isEmpty()) {
      message.append(": the same document, formatted otherwise (the file is written, not edited).");
    } else {
      message.append(" (").append(found.size()).append(" differences; file -> running):");
      found.stream().limit(MOST_DIFFERENCES).forEach(line -> message.append("\n  ").append(line));
      if (found.size() > MOST_DIFFERENCES) {
        message.append("\n  ... and ").append(found.size() - MOST_DIFFERENCES).append(" more");
      }
    }
    return message
        .append("\nA change to the API is a change to that file. If this one is meant, rewrite it")
        .append(" with\n  ")
        .append(rewriteCommand(service))
        .append("\nand commit it with the change.")
        .toString();
  }

  /** The command that writes {@code docs/openapi/<service>.json} from the service's code. */
  public static String rewriteCommand(String service) {
    return "./mvnw -B -pl "
        + service
        + " -am test -Dtest=OpenApiHttpIntegrationTest -Dsurefire.failIfNoSpecifiedTests=false -D"
        + WRITE
        + "=true";
  }

  private static JsonNode normalized(JsonNode document) {
    JsonNode sorted = sorted(document);
    ((ObjectNode) sorted).remove("servers");
    return sorted;
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = JsonNodeFactory.instance.objectNode();
      new TreeSet<>(node.propertyNames()).forEach(name -> copy.set(name, sorted(node.get(name))));
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      node.values().forEach(element -> copy.add(sorted(element)));
      return copy;
    }
    return node;
  }

  private static void compare(JsonNode before, JsonNode after, String at, List<String> found) {
    if (before.equals(after)) {
      return;
    }
    if (before.isObject() && after.isObject()) {
      TreeSet<String> names = new TreeSet<>(before.propertyNames());
      names.addAll(after.propertyNames());
      for (String name : names) {
        String member = at.isEmpty() ? name(name) : at + "." + name(name);
        if (!after.has(name)) {
          found.add("removed " + member);
        } else if (!before.has(name)) {
          found.add("added   " + member + ": " + shown(after.get(name)));
        } else {
          compare(before.get(name), after.get(name), member, found);
        }
      }
    } else if (before.isArray() && after.isArray() && before.size() == after.size()) {
      for (int i = 0; i < before.size(); i++) {
        compare(before.get(i), after.get(i), at + "[" + i + "]", found);
      }
    } else {
      found.add(
          "changed "
              + (at.isEmpty() ? "(the document)" : at)
              + ": "
              + shown(before)
              + " -> "
              + shown(after));
    }
  }

  private static String name(String name) {
    return PLAIN_NAME.matcher(name).matches() ? name : "\"" + name + "\"";
  }

  private static String shown(JsonNode value) {
    String text = value.toString();
    return text.length() <= MOST_VALUE_CHARS
        ? text
        : text.substring(0, MOST_VALUE_CHARS) + "... (" + text.length() + " chars)";
  }

  private static String read(Path file, String service) {
    if (!Files.exists(file)) {
      throw new AssertionError(
          "docs/openapi/"
              + service
              + ".json is missing: write it from the running service with\n  "
              + rewriteCommand(service));
    }
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectWriter writer() {
    DefaultIndenter lines = new DefaultIndenter("  ", "\n");
    DefaultPrettyPrinter printer =
        new DefaultPrettyPrinter(
                Separators.createDefaultInstance()
                    .withObjectNameValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEmptySeparator("")
                    .withArrayEmptySeparator(""))
            .withObjectIndenter(lines)
            .withArrayIndenter(lines);
    return StrictJson.mapper().writer().with(printer);
  }
}
