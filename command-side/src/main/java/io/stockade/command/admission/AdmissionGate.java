package io.stockade.command.admission;

/**
 * Decides, atomically and fast, whether a reservation may take stock. The gate is a filter in front
 * of the event store, which stays the record: it can be rebuilt from the events.
 */
public interface AdmissionGate {

  /**
   * Seeds a SKU's counters unless they exist. Safe to repeat.
   *
   * @throws GateUnavailableException when the gate cannot be reached in time
   */
  void register(String skuId, long initialStock, Integer perUserLimit);

  /**
   * Takes every line of the reservation, or none. Never throws for an outcome the caller must
   * handle: an unreachable gate is {@link AdmissionDecision.Unavailable}.
   */
  AdmissionDecision reserve(Admission admission);
}
