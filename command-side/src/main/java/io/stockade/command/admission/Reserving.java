package io.stockade.command.admission;

import java.util.List;

/**
 * The gate's hot path: decides, atomically and fast, whether a reservation may take its stock, all
 * of its lines or none, as it arrives or in a pre-queue's draw. Each decision is one atomic step in
 * Redis per partition the lines lie in; the gate is a filter in front of the event store, which
 * stays the record.
 *
 * <p>No method of the gate's ports throws for an outcome the caller must handle: an unreachable or
 * slow gate is reported as {@code unavailable} within the configured timeout. A malformed call or a
 * corrupted key is a bug and throws {@code GateScriptException}.
 */
public interface Reserving {

  /** Takes every line of the reservation, or none. */
  AdmissionDecision reserve(Admission admission);

  /**
   * The record refused an admission of this gate epoch (the database's epoch has moved on): the
   * gate checks Redis again before it admits anything more.
   */
  void fenced(long gateEpoch);

  /**
   * Decides one queued reservation for the pre-queue's draw, as {@link #reserve} would decide it
   * now, through a draw in progress; a refusal is kept by the gate, so that a repeat (of the draw
   * or of the client) is answered with it.
   */
  AdmissionDecision draw(Admission admission);

  /**
   * Decides queued reservations of the draw in order, as {@link #draw(Admission)} decides each,
   * many in one call where the gate can; stops after the first it cannot decide now (answered
   * {@code Unavailable}, or {@code Queued} while the gate's clock is before the opening).
   *
   * @return one decision per admission decided, in order
   */
  List<AdmissionDecision> draw(List<Admission> admissions);
}
