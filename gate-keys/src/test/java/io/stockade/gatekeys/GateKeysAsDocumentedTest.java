package io.stockade.gatekeys;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.gatekeys.GateKey.Kind;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The gate's key names are the keys docs/design.md lists ("The gate's Redis keys"): a key added,
 * renamed or dropped in {@link PartitionKeys} and not in the table, or the other way round, fails
 * here; the parse and the SCAN patterns that readers find the keys with agree with the same table.
 * (The command side checks its scripts' headers against it too.)
 */
class GateKeysAsDocumentedTest {

  private static final Map<String, String> IDS =
      Map.of("skuId", "sku-1", "reservationId", "order-7");

  @Test
  void thePartitionsKeysAreEveryDocumentedKeyAndNoOther() {
    PartitionKeys partition = PartitionKeys.of(GateKeyTable.TAG);
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
  void everyKindParsedRoundTripsAndEveryOtherDocumentedKeyParsesAsNone() {
    Map<Kind, String> found = new EnumMap<>(Kind.class);
    for (String shape : GateKeyTable.shapes().keySet()) {
      String key = GateKeyTable.fill(shape, "g3.1", IDS);
      GateKey parsed = GateKey.parse(key);
      if (parsed != null) {
        assertThat(found)
            .as("two documented keys parse as " + parsed.kind())
            .doesNotContainKey(parsed.kind());
        found.put(parsed.kind(), shape);
        assertThat(parsed.tag()).isEqualTo("g3.1");
        assertThat(parsed.name()).isEqualTo(key);
        String expectedId =
            shape.contains("<skuId>")
                ? "sku-1"
                : shape.contains("<reservationId>") ? "order-7" : null;
        assertThat(parsed.id()).isEqualTo(expectedId);
      }
    }
    assertThat(found)
        .isEqualTo(
            Map.of(
                Kind.MARKER, "stockade:{<t>}:gate",
                Kind.PENDING, "stockade:{<t>}:gate:pending",
                Kind.ADJUSTMENTS_PENDING, "stockade:{<t>}:gate:adjustments-pending",
                Kind.COUNTERS, "stockade:{<t>}:sku:<skuId>",
                Kind.INTENT, "stockade:{<t>}:reservation:<reservationId>"));
    assertThat(GateKey.parse(GateKeyspace.RATE_LIMITS_PREFIX + "user:{u-1}")).isNull();
  }

  @Test
  void aKeyThatIsNearlyOfAKindParsesAsNone() {
    assertThat(
            List.of(
                "stockade:{g1",
                "stockade:{g1}",
                "stockade:{g1}gate",
                "stockade:{g1}:",
                "stockade:{}:gate",
                "stockade:{g:1}:gate",
                "stockade:{g{1}:gate",
                "stockade:{g1}:gat",
                "stockade:{g1}:gatex",
                "stockade:{g1}:gate:pending:x",
                "stockade:{g1}:sku:",
                "stockade:{g1}:sku:a}b",
                "stockade:{g1}:reservation:",
                "stockade:{g1}:reservation:r:1",
                "stockade:{g1}:reservation:r{1",
                "stockade:g1:gate",
                "other:{g1}:gate"))
        .allSatisfy(key -> assertThat(GateKey.parse(key)).as(key).isNull());
    assertThat(GateKey.parse("stockade:{g1}:sku:a.b-c"))
        .isEqualTo(new GateKey(Kind.COUNTERS, "g1", "a.b-c"));
    assertThat(GateKey.parse("stockade:{g1}:reservation:sku:1")).isNull();
  }

  @Test
  void theScanPatternsCoverEveryDocumentedKeyAndTheMarkersPatternOnlyTheMarker() {
    Set<String> markers = new TreeSet<>();
    for (String shape : GateKeyTable.shapes().keySet()) {
      String key = GateKeyTable.fill(shape, "g0.2", IDS);
      assertThat(key).matches(glob(GateKeyspace.PATTERN));
      assertThat(key).matches(glob(GateKeyspace.PARTITION_KEYS_PATTERN));
      if (glob(GateKeyspace.MARKERS_PATTERN).matcher(key).matches()) {
        markers.add(shape);
      }
    }
    assertThat(markers).containsExactly("stockade:{<t>}:gate");
  }

  @Test
  void theRateLimitsKeysLieUnderTheGatesPrefixButOutsideThePartitions() {
    String bucket = GateKeyspace.RATE_LIMITS_PREFIX + "user:{u-1}";
    assertThat(bucket).matches(glob(GateKeyspace.PATTERN));
    assertThat(bucket).doesNotMatch(glob(GateKeyspace.PARTITION_KEYS_PATTERN));
    assertThat(GateKeyspace.RATE_LIMITS_PREFIX).startsWith("stockade:").doesNotContain("{");
    assertThat(GateKeyTable.shapes().keySet())
        .noneMatch(shape -> shape.startsWith(GateKeyspace.RATE_LIMITS_PREFIX));
  }

  @Test
  void aTagNamesItsPartitionsIndex() {
    assertThat(GateKeyspace.tag(3, 0)).isEqualTo("g3");
    assertThat(GateKeyspace.tag(3, 2)).isEqualTo("g3.2");
    assertThat(GateKeyspace.partitionIndex(GateKeyspace.tag(12, 0))).isEqualTo(12);
    assertThat(GateKeyspace.partitionIndex(GateKeyspace.tag(12, 7))).isEqualTo(12);
  }

  /** A SCAN pattern with {@code *} only (braces are literal) as a regular expression. */
  private static Pattern glob(String pattern) {
    return Pattern.compile(
        List.of(pattern.split("\\*", -1)).stream()
            .map(Pattern::quote)
            .collect(Collectors.joining(".*")));
  }
}
