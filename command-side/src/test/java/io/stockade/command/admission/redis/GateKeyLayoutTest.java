package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.gatekeys.GateKeyTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The gate's key names as the scripts' headers name them are the keys docs/design.md lists ("The
 * gate's Redis keys"): a key added, renamed or dropped in a script and not in the table fails here
 * (the names the Java code uses, {@code io.stockade.gatekeys.PartitionKeys}, are checked against
 * the same table in their own module).
 */
class GateKeyLayoutTest {

  private static final Pattern SCRIPT_KEY = Pattern.compile("stockade:\\{<t>}:[A-Za-z<>:_-]+");

  @Test
  void everyKeyAScriptsHeaderNamesIsDocumentedAndEveryDocumentedKeyIsInAScript()
      throws IOException {
    Map<String, String> documented = GateKeyTable.shapes();
    Set<String> named = new TreeSet<>();
    try (Stream<Path> scripts = Files.walk(Path.of("src/main/lua"))) {
      for (Path script : scripts.filter(p -> p.toString().endsWith(".lua")).toList()) {
        Matcher key = SCRIPT_KEY.matcher(Files.readString(script));
        while (key.find()) {
          String shape = key.group().replaceAll(":+$", "");
          assertThat(documented).as(script.getFileName() + " names " + shape).containsKey(shape);
          named.add(shape);
        }
      }
    }
    assertThat(named).isEqualTo(new TreeSet<>(documented.keySet()));
  }
}
