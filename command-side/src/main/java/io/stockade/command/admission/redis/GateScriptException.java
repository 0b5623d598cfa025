package io.stockade.command.admission.redis;

/**
 * A gate script refused its arguments or found a key of the wrong type or in an impossible state.
 * That is a bug or a corrupted gate, never an outcome to answer a caller with, and never to be
 * mistaken for "Redis cannot answer".
 */
public class GateScriptException extends IllegalStateException {

  public GateScriptException(String message, Throwable cause) {
    super(message, cause);
  }
}
