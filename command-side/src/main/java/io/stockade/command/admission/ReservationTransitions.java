package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Instant;
import java.util.List;

/**
 * The steps of an admitted reservation after its admission: confirm (wholly or in part), extend,
 * release, and the withdrawal of an admission whose storing failed. Each acts only on the admission
 * named, where the record's lines say its intent records are.
 */
public interface ReservationTransitions {

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
}
