package io.stockade.command.admission;

import java.time.Instant;

/** A SKU's stock in the gate: its registration (seeding its counters) and its replenishments. */
public interface SkuStock {

  /**
   * Seeds a SKU's counters unless they exist, its stock split over {@code buckets} buckets. Safe to
   * repeat.
   *
   * @throws GateUnavailableException when the gate cannot be reached in time
   */
  default void register(String skuId, long initialStock, Integer perUserLimit, int buckets) {
    register(skuId, initialStock, perUserLimit, buckets, null);
  }

  /**
   * Seeds a SKU's counters unless they exist, with its sale's window in the same atomic write, so
   * that no reservation is admitted between the seeding and the schedule. Safe to repeat.
   *
   * @param schedule the window the SKU was registered with, or {@code null} for none
   * @throws GateUnavailableException when the gate cannot be reached in time
   */
  void register(
      String skuId, long initialStock, Integer perUserLimit, int buckets, Schedule schedule);

  /**
   * A sale's window as a registration seeds it: {@code version} is the sequence number of its event
   * in the SKU's stream.
   *
   * @param opensAt null for no bound
   * @param closesAt null for no bound
   */
  record Schedule(Instant opensAt, Instant closesAt, long version, int prequeueSeconds) {

    /** A window without a pre-queue. */
    public Schedule(Instant opensAt, Instant closesAt, long version) {
      this(opensAt, closesAt, version, 0);
    }
  }

  /** Adds sellable stock, once per replenishment id. */
  Replenishment replenish(String skuId, String replenishmentId, long quantity);

  /** The outcome of a replenishment. */
  enum Replenishment {
    APPLIED,
    /** Applied before with the same quantity; nothing changed. */
    DUPLICATE,
    /** Applied before with another quantity; nothing changed. */
    CONFLICT,
    UNKNOWN_SKU,
    UNAVAILABLE
  }
}
