package io.stockade.query.replay;

import java.time.Duration;

/**
 * How the instances coordinate a replay.
 *
 * @param pollInterval how often each instance reads the shared state, and the longest it answers
 *     from what it read
 * @param lease how long a replay's owner holds the others off after its last heartbeat
 * @param resetTimeout how long the owner tries to reset the tokens while another instance still
 *     claims a segment, before the replay fails
 * @param keep how many ended replays (DONE or FAILED) are kept: requesting a replay deletes the
 *     older ones
 */
record ReplaySettings(Duration pollInterval, Duration lease, Duration resetTimeout, int keep) {

  ReplaySettings {
    // The replay just ended must stay readable: its caller follows it to DONE or FAILED.
    if (keep < 1) {
      throw new IllegalArgumentException("stockade.replay.keep must be at least 1, not " + keep);
    }
  }
}
