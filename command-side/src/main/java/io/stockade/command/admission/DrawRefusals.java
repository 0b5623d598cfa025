package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Instant;
import java.util.List;

/**
 * The pre-queue draws' refusals as the record keeps them, for a rebuilt gate to keep them too (as
 * reserve.lua keeps a refusal of the draw in the intent record): a repeat of a refused queued
 * reservation is answered with its refusal, never decided anew.
 */
public interface DrawRefusals {

  /**
   * A refusal of a draw.
   *
   * @param lines merged, in the queued reservation's order
   * @param reply reserve.lua's reply, its numbers joined by spaces
   */
  record Refusal(
      String reservationId,
      String userId,
      String fingerprint,
      List<ReservationLine> lines,
      String reply) {}

  /** The refusals of the draws not decided, or decided after {@code since}. */
  List<Refusal> refusalsSince(Instant since);
}
