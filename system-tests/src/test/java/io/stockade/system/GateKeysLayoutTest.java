package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.GateKeyTable;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keys the system tests read from the cluster ({@link GateKeys}) are keys docs/design.md lists
 * ("The gate's Redis keys"), which the command side's layout and scripts and the query side's copy
 * are checked against too.
 */
class GateKeysLayoutTest {

  @Test
  void theKeysReadAreDocumentedAndTheirPatternsMatchEveryPartition() {
    assertThat(GateKeyTable.shapes().keySet())
        .containsAll(List.of(GateKeys.COUNTERS, GateKeys.PENDING, GateKeys.MOVES_OUT));
    assertThat(GateKeys.every(GateKeys.PENDING)).isEqualTo("stockade:{*}:gate:pending");
    assertThat(GateKeys.every(GateKeys.COUNTERS)).isEqualTo("stockade:{*}:sku:<skuId>");
  }
}
