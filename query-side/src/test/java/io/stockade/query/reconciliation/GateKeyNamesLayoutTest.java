package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.GateKeyTable;
import io.stockade.query.reconciliation.GateKeyNames.GateKey;
import io.stockade.query.reconciliation.GateKeyNames.Kind;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The query side's copy of the gate's key names agrees with the keys docs/design.md lists ("The
 * gate's Redis keys"), which the command side's layout and scripts are checked against too: each
 * kind the reconciliation reads is one documented key, built and parsed alike, and every other
 * documented key is parsed as none of them.
 */
class GateKeyNamesLayoutTest {

  private static final Map<String, String> IDS =
      Map.of("skuId", "sku-1", "reservationId", "order-7");

  @Test
  void everyDocumentedKeyParsesAsTheKindItIsAndTheReadKindsAreDocumented() {
    Map<Kind, String> found = new EnumMap<>(Kind.class);
    for (Map.Entry<String, String> shape : GateKeyTable.shapes().entrySet()) {
      String key = GateKeyTable.fill(shape.getKey(), "g3.1", IDS);
      GateKey parsed = GateKeyNames.parse(key);
      if (parsed != null) {
        assertThat(found)
            .as("two documented keys parse as " + parsed.kind())
            .doesNotContainKey(parsed.kind());
        found.put(parsed.kind(), shape.getKey());
        assertThat(parsed.tag()).isEqualTo("g3.1");
        assertThat(GateKeyNames.name(parsed.kind(), parsed.tag(), parsed.id())).isEqualTo(key);
        String expectedId =
            shape.getKey().contains("<skuId>")
                ? "sku-1"
                : shape.getKey().contains("<reservationId>") ? "order-7" : null;
        assertThat(parsed.id()).isEqualTo(expectedId);
      }
    }
    assertThat(found).containsOnlyKeys(Kind.values());
    assertThat(found.get(Kind.MARKER)).isEqualTo("stockade:{<t>}:gate");
    assertThat(found.get(Kind.PENDING)).isEqualTo("stockade:{<t>}:gate:pending");
    assertThat(found.get(Kind.ADJUSTMENTS_PENDING))
        .isEqualTo("stockade:{<t>}:gate:adjustments-pending");
    assertThat(found.get(Kind.COUNTERS)).isEqualTo("stockade:{<t>}:sku:<skuId>");
    assertThat(found.get(Kind.INTENT)).isEqualTo("stockade:{<t>}:reservation:<reservationId>");
  }

  @Test
  void aSkusAdjustmentsHashIsNamedAsDocumented() {
    assertThat(GateKeyTable.shapes()).containsKey("stockade:{<t>}:sku:<skuId>:adjustments");
    assertThat(GateKeyNames.adjustments("g3.1", "sku-1"))
        .isEqualTo(GateKeyTable.fill("stockade:{<t>}:sku:<skuId>:adjustments", "g3.1", IDS));
  }

  @Test
  void theScanPatternCoversEveryDocumentedKey() {
    String pattern = GateKeyNames.PARTITION_KEYS_PATTERN;
    String prefix = pattern.substring(0, pattern.indexOf('*'));
    for (String shape : GateKeyTable.shapes().keySet()) {
      String key = GateKeyTable.fill(shape, "g0", IDS);
      assertThat(key).startsWith(prefix);
      assertThat(key.substring(key.indexOf('}'))).startsWith("}:");
    }
    assertThat(pattern).isEqualTo("stockade:{*}:*");
  }
}
