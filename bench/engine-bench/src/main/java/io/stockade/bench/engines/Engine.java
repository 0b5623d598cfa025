package io.stockade.bench.engines;

/**
 * One way of admitting flash-sale buyers against a hot SKU's stock. A round stocks a fresh SKU,
 * calls {@link #attempt} from many threads, then asks the store what was taken.
 */
interface Engine extends AutoCloseable {

  /** Short name, one word, used in the {@code RESULT} lines. */
  String name();

  /** What the engine does, one line for the report. */
  String description();

  /** Creates the SKU with {@code units} available. */
  void stock(String sku, long units) throws Exception;

  /**
   * One buyer asks for one unit.
   *
   * @param attempt unique within the round
   * @return true when the unit was admitted, false when refused (sold out)
   */
  boolean attempt(String sku, String user, long attempt) throws Exception;

  /** The units taken from the SKU as its store says after the round, not as callers counted. */
  long taken(String sku, long stocked) throws Exception;
}
