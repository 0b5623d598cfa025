package io.stockade.command.admission;

/** The gate could not be reached or did not answer in time. */
public class GateUnavailableException extends RuntimeException {

  public GateUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
