package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.CommandProblems;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.ratelimit.RateLimits;
import io.stockade.command.reservation.ReservationController.QueuedResponse;
import io.stockade.command.reservation.ReservationController.ReservationResponse;
import io.stockade.platform.web.ProblemException;
import io.stockade.platform.web.ProblemResponses;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The answer of {@code POST /api/reservations} for each outcome of the gate: 201, 200 for a repeat,
 * 202 for the pre-queue, or the contract's problem. Refusals are returned as problem responses, not
 * thrown: a flash sale refuses far more requests than it admits.
 */
record AdmissionAnswer(
    ReserveRequest request, List<ReservationLine> lines, RateLimits.Reserving limits)
    implements AdmissionDecision.Cases<ResponseEntity<?>> {

  @Override
  public ResponseEntity<?> admitted(AdmissionDecision.Admitted admitted) {
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(
            new ReservationResponse(
                request.reservationId(), "RESERVED", lines, admitted.expiresAt()));
  }

  @Override
  public ResponseEntity<?> duplicate(AdmissionDecision.Duplicate duplicate) {
    return ResponseEntity.ok(
        new ReservationResponse(
            request.reservationId(), duplicate.state(), lines, duplicate.expiresAt()));
  }

  @Override
  public ResponseEntity<?> reused(AdmissionDecision.Reused reused) {
    return ProblemResponses.response(
        new ProblemException(
            HttpStatus.UNPROCESSABLE_CONTENT,
            CommandProblems.RESERVATION_ID_REUSED,
            "Reservation id reused",
            "Reservation " + request.reservationId() + " exists with other content.",
            Map.of("reservationId", request.reservationId())));
  }

  /**
   * A retry of a reservation whose first attempt was answered 503 and never recorded: the sweeper
   * gave its units back. Not a 200 (nothing is held), and not a new admission (its id's stream is
   * taken): the client reserves again under a new id.
   */
  @Override
  public ResponseEntity<?> abandoned(AdmissionDecision.Abandoned abandoned) {
    return ProblemResponses.response(
        new ProblemException(
            HttpStatus.CONFLICT,
            CommandProblems.RESERVATION_NOT_ACTIVE,
            "Reservation not active",
            "Reservation "
                + request.reservationId()
                + " was never recorded and its units went back (releaseReason "
                + ReservationAbandoned.REASON
                + "); nothing is reserved under it. Reserve again under a new id.",
            Map.of(
                "reservationId",
                request.reservationId(),
                "reservationStatus",
                "RELEASED",
                "releaseReason",
                ReservationAbandoned.REASON)));
  }

  @Override
  public ResponseEntity<?> insufficient(AdmissionDecision.Insufficient insufficient) {
    return lineRefused(
        HttpStatus.CONFLICT,
        CommandProblems.INSUFFICIENT_STOCK,
        "Insufficient stock",
        "Not enough stock of SKU " + insufficient.skuId(),
        insufficient.skuId(),
        insufficient.lineIndex(),
        Map.of(),
        HttpHeaders.EMPTY);
  }

  @Override
  public ResponseEntity<?> limitExceeded(AdmissionDecision.LimitExceeded exceeded) {
    return lineRefused(
        HttpStatus.CONFLICT,
        CommandProblems.PURCHASE_LIMIT_EXCEEDED,
        "Purchase limit exceeded",
        "User "
            + request.userId()
            + " may hold at most "
            + exceeded.limit()
            + " units of SKU "
            + exceeded.skuId(),
        exceeded.skuId(),
        exceeded.lineIndex(),
        Map.of("limit", exceeded.limit(), "alreadyReserved", exceeded.alreadyHeld()),
        HttpHeaders.EMPTY);
  }

  @Override
  public ResponseEntity<?> unknownSku(AdmissionDecision.UnknownSku unknown) {
    return lineRefused(
        HttpStatus.NOT_FOUND,
        CommandProblems.UNKNOWN_SKU,
        "Unknown SKU",
        "SKU " + unknown.skuId() + " is not registered",
        unknown.skuId(),
        unknown.lineIndex(),
        Map.of(),
        HttpHeaders.EMPTY);
  }

  @Override
  public ResponseEntity<?> unavailable(AdmissionDecision.Unavailable unavailable) {
    return ProblemResponses.response(
        ProblemException.unavailable(
            CommandProblems.GATE_UNAVAILABLE,
            "The admission gate cannot decide safely now; nothing was reserved.",
            1));
  }

  @Override
  public ResponseEntity<?> rateLimited(AdmissionDecision.RateLimited limited) {
    return ProblemResponses.response(limits.refused(limited));
  }

  /** Queued for the pre-queue's draw (api.md 1.2, "Fair start"): decided at the opening. */
  @Override
  public ResponseEntity<?> queued(AdmissionDecision.Queued queued) {
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .body(
            new QueuedResponse(
                request.reservationId(), "QUEUED", queued.opensAt(), queued.drawCommitment()));
  }

  /**
   * The sale opened with a pre-queue whose draw is not decided: every reservation arriving after
   * the opening comes after the whole queue.
   */
  @Override
  public ResponseEntity<?> drawInProgress(AdmissionDecision.DrawInProgress inProgress) {
    return ProblemResponses.response(
        ProblemException.unavailable(
            CommandProblems.DRAW_IN_PROGRESS,
            "The sale of SKU "
                + inProgress.skuId()
                + " opened at "
                + inProgress.opensAt()
                + " with a pre-queue whose draw is being decided; nothing was reserved."
                + " Retry with the same reservationId.",
            1));
  }

  @Override
  public ResponseEntity<?> saleNotOpen(AdmissionDecision.SaleNotOpen notOpen) {
    // Seconds until it opens by the gate's clock, rounded up: a retry then finds it open.
    long millis = Duration.between(notOpen.now(), notOpen.opensAt()).toMillis();
    HttpHeaders headers = new HttpHeaders();
    headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(Math.max(1, (millis + 999) / 1000)));
    return lineRefused(
        HttpStatus.CONFLICT,
        CommandProblems.SALE_NOT_OPEN,
        "Sale not open",
        "The sale of SKU " + notOpen.skuId() + " opens at " + notOpen.opensAt(),
        notOpen.skuId(),
        notOpen.lineIndex(),
        Map.of("opensAt", notOpen.opensAt().toString()),
        HttpHeaders.readOnlyHttpHeaders(headers));
  }

  @Override
  public ResponseEntity<?> saleClosed(AdmissionDecision.SaleClosed closed) {
    return lineRefused(
        HttpStatus.CONFLICT,
        CommandProblems.SALE_CLOSED,
        "Sale closed",
        "The sale of SKU " + closed.skuId() + " closed at " + closed.closesAt(),
        closed.skuId(),
        closed.lineIndex(),
        Map.of("closesAt", closed.closesAt().toString()),
        HttpHeaders.EMPTY);
  }

  @Override
  public ResponseEntity<?> salePaused(AdmissionDecision.SalePaused paused) {
    return lineRefused(
        HttpStatus.CONFLICT,
        CommandProblems.SALE_PAUSED,
        "Sale paused",
        "The sale of SKU " + paused.skuId() + " is paused",
        paused.skuId(),
        paused.lineIndex(),
        Map.of(),
        HttpHeaders.EMPTY);
  }

  /**
   * The problem of a reservation refused for one of its lines: nothing was reserved. Its members
   * name the line ({@code skuId}, {@code lineIndex}), then {@code more}.
   */
  private static ResponseEntity<?> lineRefused(
      HttpStatus status,
      String code,
      String title,
      String detail,
      String skuId,
      int lineIndex,
      Map<String, Object> more,
      HttpHeaders headers) {
    Map<String, Object> members = new LinkedHashMap<>();
    members.put("skuId", skuId);
    members.put("lineIndex", lineIndex);
    members.putAll(more);
    return ProblemResponses.response(
        new ProblemException(
            status, code, title, detail + "; nothing was reserved.", members, headers));
  }
}
