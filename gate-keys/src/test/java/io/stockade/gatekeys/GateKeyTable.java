package io.stockade.gatekeys;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The admission gate's Redis keys as {@code docs/design.md} lists them (the table under "The gate's
 * Redis keys"): each key's shape, such as {@code stockade:{<t>}:sku:<skuId>}, and its Redis type.
 * The list that the names ({@link PartitionKeys}) and the command side's scripts' headers are
 * checked against, from their module's directory.
 */
public final class GateKeyTable {

  /** The placeholder of a partition's tag in a shape. */
  public static final String TAG = "<t>";

  private static final Pattern ROW =
      Pattern.compile("^\\| `(stockade:\\{<t>}:[^`]+)` \\| ([a-z ]+) \\|", Pattern.MULTILINE);

  private GateKeyTable() {}

  /** Shape to Redis type, in the table's order. */
  public static Map<String, String> shapes() {
    String design;
    try {
      design = Files.readString(Path.of("../docs/design.md"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int table = design.indexOf("| key | type | contents |");
    if (table < 0) {
      throw new IllegalStateException("docs/design.md has no table of the gate's keys");
    }
    int end = design.indexOf("\n\n", table);
    Matcher row = ROW.matcher(design.substring(table, end < 0 ? design.length() : end));
    Map<String, String> shapes = new LinkedHashMap<>();
    while (row.find()) {
      shapes.put(row.group(1), row.group(2).trim());
    }
    if (shapes.isEmpty()) {
      throw new IllegalStateException("the table of the gate's keys in docs/design.md is empty");
    }
    return shapes;
  }

  /** A shape with its placeholders filled: the tag and any {@code <name>} by {@code values}. */
  public static String fill(String shape, String tag, Map<String, String> values) {
    String key = shape.replace(TAG, tag);
    for (Map.Entry<String, String> value : values.entrySet()) {
      key = key.replace("<" + value.getKey() + ">", value.getValue());
    }
    return key;
  }
}
