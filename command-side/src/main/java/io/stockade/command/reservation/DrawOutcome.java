package io.stockade.command.reservation;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A decision of the draw: its outcome, the refused line's SKU and the refusal as the gate answers
 * its repeat; for an admission to store, its storing and the admission to mark recorded in the gate
 * once stored.
 */
record DrawOutcome(
    String outcome,
    String skuId,
    String refusal,
    CompletableFuture<Boolean> stored,
    AdmissionId admission) {

  static DrawOutcome refused(String outcome, String skuId, String refusal) {
    return new DrawOutcome(outcome, skuId, refusal, null, null);
  }

  private static final Logger log = LoggerFactory.getLogger(Drawing.class);

  /**
   * What the draw records of the gate's answer; null when the gate cannot decide now (closed or
   * rebuilt, its clock not yet at the opening): the draw stops there and goes on at the next poll.
   */
  static final class Reading implements AdmissionDecision.Cases<DrawOutcome> {

    private final Admission admission;
    private final StoringReservations storing;

    Reading(Admission admission, StoringReservations storing) {
      this.admission = admission;
      this.storing = storing;
    }

    private DrawOutcome admittedAs(AdmissionId id, Instant admittedAt, Instant expiresAt) {
      return new DrawOutcome(
          ReservationDrawn.ADMITTED, null, null, store(id, admittedAt, expiresAt), id);
    }

    @Override
    public DrawOutcome admitted(AdmissionDecision.Admitted admitted) {
      return admittedAs(admitted.admission(), admitted.admittedAt(), admitted.expiresAt());
    }

    /** Decided before (this draw, interrupted): stored again if it may not be yet. */
    @Override
    public DrawOutcome duplicate(AdmissionDecision.Duplicate duplicate) {
      return duplicate.recording()
          ? admittedAs(duplicate.admission(), duplicate.admittedAt(), duplicate.expiresAt())
          : new DrawOutcome(ReservationDrawn.ADMITTED, null, null, null, null);
    }

    @Override
    public DrawOutcome insufficient(AdmissionDecision.Insufficient insufficient) {
      return DrawOutcome.refused(
          "INSUFFICIENT_STOCK", insufficient.skuId(), "4 " + insufficient.lineIndex() + " 0");
    }

    @Override
    public DrawOutcome limitExceeded(AdmissionDecision.LimitExceeded exceeded) {
      return DrawOutcome.refused(
          "LIMIT_EXCEEDED",
          exceeded.skuId(),
          "5 "
              + exceeded.lineIndex()
              + " "
              + exceeded.limit()
              + " "
              + exceeded.alreadyHeld()
              + " 0");
    }

    @Override
    public DrawOutcome saleClosed(AdmissionDecision.SaleClosed closed) {
      return DrawOutcome.refused(
          "SALE_CLOSED",
          closed.skuId(),
          "9 " + closed.lineIndex() + " " + closed.closesAt().toEpochMilli() + " 0");
    }

    @Override
    public DrawOutcome salePaused(AdmissionDecision.SalePaused paused) {
      return DrawOutcome.refused("SALE_PAUSED", paused.skuId(), "10 " + paused.lineIndex() + " 0");
    }

    /**
     * Only a gate other than the one the queue was made with knows no SKU of it: this instance
     * leaves the draw to others for a while.
     */
    @Override
    public DrawOutcome unknownSku(AdmissionDecision.UnknownSku unknown) {
      log.error(
          "The gate does not know SKU {} of reservation {}; this instance leaves its draw",
          unknown.skuId(),
          admission.reservationId());
      throw new LeaveDraw();
    }

    @Override
    public DrawOutcome unavailable(AdmissionDecision.Unavailable unavailable) {
      log.info("Draw waits for the gate: {}", unavailable.reason());
      return null;
    }

    /** The gate's clock is not yet at the opening. */
    @Override
    public DrawOutcome queued(AdmissionDecision.Queued queued) {
      return null;
    }

    @Override
    public DrawOutcome reused(AdmissionDecision.Reused reused) {
      throw unexpected(reused);
    }

    @Override
    public DrawOutcome abandoned(AdmissionDecision.Abandoned abandoned) {
      throw unexpected(abandoned);
    }

    @Override
    public DrawOutcome rateLimited(AdmissionDecision.RateLimited limited) {
      throw unexpected(limited);
    }

    @Override
    public DrawOutcome saleNotOpen(AdmissionDecision.SaleNotOpen notOpen) {
      throw unexpected(notOpen);
    }

    @Override
    public DrawOutcome drawInProgress(AdmissionDecision.DrawInProgress inProgress) {
      throw unexpected(inProgress);
    }

    private IllegalStateException unexpected(AdmissionDecision decision) {
      return new IllegalStateException(
          "The draw cannot decide " + admission.reservationId() + ": " + decision);
    }

    private CompletableFuture<Boolean> store(
        AdmissionId id, Instant admittedAt, Instant expiresAt) {
      return storing.submit(StoringReservations.command(admission, id, admittedAt, expiresAt));
    }
  }

  /** This instance's gate does not know a SKU of the draw: it leaves the draw to others. */
  static final class LeaveDraw extends RuntimeException {

    LeaveDraw() {
      super(null, null, false, false);
    }
  }
}
