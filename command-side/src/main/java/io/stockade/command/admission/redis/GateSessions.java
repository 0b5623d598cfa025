package io.stockade.command.admission.redis;

/** Where the gate gets a session to Redis, and says when one must not be used any more. */
public interface GateSessions {

  /** The open session, or null while the gate is closed; asking for it starts opening it. */
  GateSession current();

  /**
   * The session's epoch is not the gate's any more (a script answered CLOSED) or its connection
   * failed: it is dropped and the gate opens again, checking Redis first.
   */
  void lost(GateSession session);
}
