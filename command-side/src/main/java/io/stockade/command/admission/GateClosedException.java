package io.stockade.command.admission;

/**
 * The gate is closed: Redis lost its data, is being rebuilt, or was never opened. Every operation
 * answers it as "unavailable", as it does Redis not answering.
 */
public final class GateClosedException extends RuntimeException {

  public GateClosedException(String message) {
    super(message, null, false, false);
  }
}
