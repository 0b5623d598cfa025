package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * A reservation's units are available again, for the given reason: it ended unpaid, or (reason
 * {@link #NOT_CONFIRMED}) these are the units its partial confirmation did not confirm.
 *
 * @param lines the units released: every reserved unit, or those a partial confirmation left
 */
public record StockReleased(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    String reason,
    Instant releasedAt)
    implements ReservationEvent {

  /** The reason of a release by the reservation's deadline. */
  public static final String EXPIRED = "EXPIRED";

  /**
   * The reason of the units a partial confirmation did not confirm: released by the same request,
   * in the same transaction, right after the reservation's {@link StockConfirmed}. The reservation
   * is CONFIRMED; only these units went back.
   */
  public static final String NOT_CONFIRMED = "NOT_CONFIRMED";

  public StockReleased {
    lines = List.copyOf(lines);
  }

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
