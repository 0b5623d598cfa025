package io.stockade.command.admission;

/** An admission of a gate epoch that has ended: it must not be recorded. */
public class GateEpochChangedException extends RuntimeException {

  public GateEpochChangedException(long admittedIn, long current, String state) {
    super(
        "Admitted in gate epoch "
            + admittedIn
            + ", but the gate is in epoch "
            + current
            + " ("
            + state
            + ")");
  }
}
