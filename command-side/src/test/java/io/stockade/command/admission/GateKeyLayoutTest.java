package io.stockade.command.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.GateKeyTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The gate's key names as {@link GateLayout} builds them, and as the scripts' headers name them,
 * are the keys docs/design.md lists ("The gate's Redis keys"): a key added, renamed or dropped in
 * one place and not the others fails here (the query side's and the system tests' copies are
 * checked against the same table by their own tests).
 */
class GateKeyLayoutTest {

  private static final Pattern SCRIPT_KEY = Pattern.compile("stockade:\\{<t>}:[A-Za-z<>:_-]+");

  @Test
  void theLayoutNamesEveryDocumentedKeyAndNoOther() {
    GateLayout.Partition partition = new GateLayout.Partition(0, GateKeyTable.TAG);
    Set<String> built =
        new TreeSet<>(
            List.of(
                partition.marker(),
                partition.sequence(),
                partition.pending(),
                partition.decisions(),
                partition.dropped(),
                partition.transfers(),
                partition.transferIds(),
                partition.transfersIn(),
                partition.transferSequence(),
                partition.counters("<skuId>"),
                partition.holders("<skuId>"),
                partition.replenishments("<skuId>"),
                partition.adjustments("<skuId>"),
                partition.adjustmentsPending(),
                partition.intent("<reservationId>")));

    assertThat(built).isEqualTo(new TreeSet<>(GateKeyTable.shapes().keySet()));
    assertThat(partition.reservationId(partition.intent("r-1"))).isEqualTo("r-1");
  }

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

  @Test
  void theRateLimitsKeysLieOutsideThePartitionsThatTheGateClears() {
    assertThat(GateLayout.NOT_GATE_PREFIX).startsWith("stockade:").doesNotContain("{");
    assertThat(GateKeyTable.shapes().keySet())
        .noneMatch(shape -> shape.startsWith(GateLayout.NOT_GATE_PREFIX));
  }
}
