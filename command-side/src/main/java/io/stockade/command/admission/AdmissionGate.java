package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Decides, atomically and fast, who may take stock. Each operation is one atomic step in Redis; the
 * gate is a filter in front of the event store, which stays the record.
 *
 * <p>No method throws for an outcome the caller must handle: an unreachable or slow gate is
 * reported as {@code unavailable} within the configured timeout. A malformed call or a corrupted
 * key is a bug and throws {@link GateScriptException}.
 */
public interface AdmissionGate {

  /**
   * Seeds a SKU's counters unless they exist, its stock split over {@code buckets} buckets. Safe to
   * repeat.
   *
   * @throws GateUnavailableException when the gate cannot be reached in time
   */
  void register(String skuId, long initialStock, Integer perUserLimit, int buckets);

  /** Takes every line of the reservation, or none. */
  AdmissionDecision reserve(Admission admission);

  /**
   * Turns the reserved units of a reservation's admission into sold units. The lines (the record's)
   * say where its intent records are; the gate acts on what they hold, and only on the admission
   * named.
   */
  default Transition confirm(
      String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    return confirm(reservationId, admission, lines, null);
  }

  /**
   * Confirms a reservation's admission, wholly or in part: the units {@code confirmed} names become
   * sold, every other reserved unit of the admission goes back to available stock and the user's
   * allowance, in one step per partition.
   *
   * @param lines the record's lines of the reservation: where its intent records are
   * @param confirmed the units sold, at most one line per SKU of {@code lines}, a SKU absent for
   *     none of its units; null for every reserved unit
   */
  Transition confirm(
      String reservationId,
      AdmissionId admission,
      List<ReservationLine> lines,
      List<ReservationLine> confirmed);

  /**
   * Moves the end of a reserved admission's hold, as the gate answers it to a retry, to {@code
   * expiresAt} if that is later. It changes no stock: the hold's end is the record's business.
   */
  Transition extend(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, Instant expiresAt);

  /**
   * Returns the reserved units of a reservation's admission to available stock and the user's
   * allowance. The lines say where its intent records are; the gate acts on what they hold, and
   * only on the admission named.
   */
  Transition release(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, String reason);

  /**
   * Withdraws an admission whose storing failed before its transaction could commit: its units come
   * back now, unless another recorder (a concurrent retry) may still store it. Never call it when
   * the commit may have happened: the recovery sweeper settles those through the record.
   */
  Withdrawal withdraw(String reservationId, AdmissionId admission, List<ReservationLine> lines);

  /** The outcome of a withdrawal. */
  enum Withdrawal {
    /** Units back, intent gone: a retry is admitted afresh. */
    WITHDRAWN,
    /** A concurrent retry may still store it; nothing given back. */
    OTHERS_RECORDING,
    /** Stored or ended; nothing changed. */
    NOT_WITHDRAWN,
    /** The gate holds only other admissions of the id; nothing changed. */
    OTHER_ADMISSION,
    UNKNOWN,
    UNAVAILABLE
  }

  /**
   * The record refused an admission of this gate epoch (the database's epoch has moved on): the
   * gate checks Redis again before it admits anything more.
   */
  void fenced(long gateEpoch);

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

  /** Adds sellable stock, once per replenishment id. */
  Replenishment replenish(String skuId, String replenishmentId, long quantity);

  /** The outcome of a confirm or a release. */
  enum Transition {
    /** Done now. */
    DONE,
    /** Done before: a repeat changes nothing. */
    ALREADY_DONE,
    /** Refused: the reservation went the other way (released when confirming, or the reverse). */
    NOT_ACTIVE,
    /** The gate holds only other admissions of the id (reused): nothing changed. */
    OTHER_ADMISSION,
    /** The gate has no intent record for the reservation. */
    UNKNOWN,
    /** The gate cannot decide safely now; nothing changed. */
    UNAVAILABLE
  }

  /** The outcome of a replenishment. */
  enum Replenishment {
    APPLIED,
    /** Applied before with the same quantity; nothing changed. */
    DUPLICATE,
    /** Applied before with another quantity; nothing changed. */
    CONFLICT,
    UNKNOWN_SKU,
    UNAVAILABLE
  }
}
