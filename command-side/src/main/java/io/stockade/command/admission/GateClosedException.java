package io.stockade.command.admission;

/**
 * The gate is closed: Redis lost its data, is being rebuilt, or was never opened. Every operation
 * answers it as "unavailable", as it does Redis not answering.
 */
final class GateClosedException extends RuntimeException {

  GateClosedException(String message) {
    super(message, null, false, false);
  }
}
