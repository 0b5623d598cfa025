package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The gate's list of admissions not yet known to be recorded, and of moves between buckets not yet
 * finished: what the recovery works from to repair what a crash left half done.
 */
public interface PendingAdmissions {

  /**
   * Takes a recorded admission off the gate's pending list, in every partition its lines lie in;
   * the entries of other admissions of the id stay. Best effort: never throws.
   */
  void recorded(String reservationId, AdmissionId admission, List<ReservationLine> lines);

  /**
   * Takes one pending entry off the gate's pending list, if it is the named admission's ({@link
   * AdmissionId#NONE}: if it has no intent). Best effort: never throws.
   */
  void recorded(Pending pending, AdmissionId admission);

  /**
   * Admissions pending for at least {@code bound} that are not known to be recorded, oldest first:
   * the recovery sweeper's work list. Their age is told by the clock of the Redis that admitted
   * them (which also timed the admission), never by an instance's: a skewed instance neither gives
   * up others' admissions early nor has its own given up early. A reservation whose SKUs lie in
   * several partitions of the gate has one entry per partition.
   */
  List<Pending> pendingFor(Duration bound, int limit);

  /** One entry of the pending list: the part of a reservation admitted in one partition. */
  record Pending(String reservationId, int partition) {}

  /** The gate's intent record of a pending admission's part, if it still has one. */
  Optional<Intent> intent(Pending pending);

  /**
   * What the gate recorded when it admitted (the part of) a reservation, and the state it is in
   * now; {@code lines} are the lines of the part.
   */
  record Intent(String state, String userId, List<ReservationLine> lines, AdmissionId admission) {

    public Intent {
      lines = List.copyOf(lines);
    }
  }

  /**
   * Finishes the moves of units between a SKU's buckets begun at least {@code bound} ago and left
   * unfinished (a crash, a failed Redis): their units are available again in the bucket they were
   * moved to.
   *
   * @return how many were finished
   */
  int settleTransfers(Duration bound);
}
