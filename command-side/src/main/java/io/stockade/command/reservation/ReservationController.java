package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.CommandProblems;
import io.stockade.command.EventStoreOutage;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.ratelimit.RateLimits;
import io.stockade.platform.logging.LoggingContext;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemCodes;
import io.stockade.platform.web.ProblemException;
import io.stockade.platform.web.ProblemResponses;
import io.stockade.platform.web.ProblemResponses.FieldProblem;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/reservations")
class ReservationController {

  private final ReservingStock reservingStock;
  private final EndingReservation endingReservation;
  private final ExtendingReservation extendingReservation;
  private final ReservationRules rules;
  private final RateLimits rateLimits;

  ReservationController(
      ReservingStock reservingStock,
      EndingReservation endingReservation,
      ExtendingReservation extendingReservation,
      ReservationRules rules,
      RateLimits rateLimits) {
    this.reservingStock = reservingStock;
    this.endingReservation = endingReservation;
    this.extendingReservation = extendingReservation;
    this.rules = rules;
    this.rateLimits = rateLimits;
  }

  record StatusResponse(String reservationId, String status) {}

  /**
   * The optional body of a release.
   *
   * @param reason why the reservation ends unpaid; EXPIRED is the deadline's own
   */
  record ReleaseRequest(@Pattern(regexp = "(?!EXPIRED$)[A-Z_]{1,32}") String reason) {}

  /**
   * The optional body of a confirmation.
   *
   * @param lines the units to sell (lines of one SKU merged); every other reserved unit goes back.
   *     Absent: every reserved unit is sold
   */
  record ConfirmRequest(@Size(min = 1) List<ReserveRequest.@NotNull @Valid Line> lines) {}

  /**
   * @param lines the units sold
   */
  record ConfirmResponse(String reservationId, String status, List<ReservationLine> lines) {}

  @PostMapping("/{reservationId}/confirm")
  @ApiResponse(
      responseCode = "200",
      description =
          "Confirmed: the units sold (every reserved one, or those the body names; the rest went"
              + " back to available stock and the user's allowance), also for a repeat",
      content = @Content(schema = @Schema(implementation = ConfirmResponse.class)))
  @Problem(status = 400, codes = ProblemCodes.INVALID_REQUEST)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_RESERVATION)
  @Problem(status = 409, codes = CommandProblems.RESERVATION_NOT_ACTIVE)
  @Problem(status = 429, codes = CommandProblems.RATE_LIMITED)
  @Problem(status = 503, codes = CommandProblems.EVENT_STORE_UNAVAILABLE)
  ConfirmResponse confirm(
      @PathVariable @Identifier String reservationId,
      @RequestBody(required = false) @Valid ConfirmRequest request,
      Principal caller) {
    LoggingContext.reservation(reservationId);
    List<ReservationLine> selling =
        request == null || request.lines() == null ? null : confirmedLines(request.lines());
    rateLimits.ending(caller);
    List<ReservationLine> sold =
        step(reservationId, () -> endingReservation.confirm(reservationId, selling));
    return new ConfirmResponse(reservationId, "CONFIRMED", sold);
  }

  /** A confirmation's lines, merged per SKU in the order each first appears. */
  private List<ReservationLine> confirmedLines(List<ReserveRequest.Line> lines) {
    List<ReserveRequest.MergedLine> merged = ReserveRequest.merge(lines);
    ReservationRules.refuse(rules.quantities(merged));
    return merged.stream().map(ReserveRequest.MergedLine::toLine).toList();
  }

  /**
   * The body of an extension.
   *
   * @param holdSeconds the hold now ends no sooner than this many seconds from now
   */
  record ExtendRequest(@NotNull @Positive Long holdSeconds) {}

  record ExtendResponse(String reservationId, String status, Instant expiresAt) {}

  @PostMapping("/{reservationId}/extend")
  @ApiResponse(
      responseCode = "200",
      description =
          "The hold now ends at the later of its end and now + holdSeconds, also for a repeat",
      content = @Content(schema = @Schema(implementation = ExtendResponse.class)))
  @Problem(status = 400, codes = ProblemCodes.INVALID_REQUEST)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_RESERVATION)
  @Problem(status = 409, codes = CommandProblems.RESERVATION_NOT_ACTIVE)
  @Problem(status = 429, codes = CommandProblems.RATE_LIMITED)
  @Problem(status = 503, codes = CommandProblems.EVENT_STORE_UNAVAILABLE)
  ExtendResponse extend(
      @PathVariable @Identifier String reservationId,
      @RequestBody @Valid ExtendRequest request,
      Principal caller) {
    LoggingContext.reservation(reservationId);
    rules.check(List.of(), request.holdSeconds());
    rateLimits.ending(caller);
    Instant expiresAt =
        step(
            reservationId,
            () ->
                extendingReservation.extend(
                    reservationId, Duration.ofSeconds(request.holdSeconds())));
    return new ExtendResponse(reservationId, "RESERVED", expiresAt);
  }

  @PostMapping("/{reservationId}/release")
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_RESERVATION)
  @Problem(status = 409, codes = CommandProblems.RESERVATION_NOT_ACTIVE)
  @Problem(status = 429, codes = CommandProblems.RATE_LIMITED)
  @Problem(status = 503, codes = CommandProblems.EVENT_STORE_UNAVAILABLE)
  StatusResponse release(
      @PathVariable @Identifier String reservationId,
      @RequestBody(required = false) @Valid ReleaseRequest request,
      Principal caller) {
    LoggingContext.reservation(reservationId);
    rateLimits.ending(caller);
    String reason = request == null || request.reason() == null ? "CANCELLED" : request.reason();
    step(
        reservationId,
        () -> {
          endingReservation.release(reservationId, reason);
          return null;
        });
    return new StatusResponse(reservationId, "RELEASED");
  }

  /** A step of a recorded reservation, its refusals answered as the contract's problems. */
  private static <T> T step(String reservationId, Supplier<T> step) {
    try {
      return step.get();
    } catch (ReservationNotActiveException e) {
      throw notActive(reservationId, e);
    } catch (InvalidConfirmationException e) {
      throw ProblemResponses.invalidRequest(
          e.wrong().stream()
              .map(wrong -> new FieldProblem(wrong.field(), wrong.message()))
              .toList());
    } catch (AggregateNotFoundException e) {
      throw unknownReservation(reservationId);
    }
  }

  private static ProblemException notActive(String reservationId, ReservationNotActiveException e) {
    return new ProblemException(
        HttpStatus.CONFLICT,
        CommandProblems.RESERVATION_NOT_ACTIVE,
        "Reservation not active",
        "Reservation " + reservationId + " is already " + e.status() + "; nothing was changed.",
        Map.of("reservationId", reservationId, "reservationStatus", e.status()));
  }

  private static ProblemException unknownReservation(String reservationId) {
    return new ProblemException(
        HttpStatus.NOT_FOUND,
        CommandProblems.UNKNOWN_RESERVATION,
        "Unknown reservation",
        "There is no reservation " + reservationId + ".",
        Map.of("reservationId", reservationId));
  }

  record ReservationResponse(
      String reservationId, String status, List<ReservationLine> lines, Instant expiresAt) {}

  /** 202: queued for the pre-queue's draw at {@code opensAt}. */
  record QueuedResponse(
      String reservationId, String status, Instant opensAt, String drawCommitment) {}

  @PostMapping
  @ApiResponse(
      responseCode = "201",
      description = "Every line reserved",
      content = @Content(schema = @Schema(implementation = ReservationResponse.class)))
  @ApiResponse(
      responseCode = "200",
      description = "A retry with the same content",
      content = @Content(schema = @Schema(implementation = ReservationResponse.class)))
  @ApiResponse(
      responseCode = "202",
      description = "Queued in the sale's pre-queue for the draw at its opening",
      content = @Content(schema = @Schema(implementation = QueuedResponse.class)))
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(
      status = 409,
      codes = {
        CommandProblems.INSUFFICIENT_STOCK,
        CommandProblems.PURCHASE_LIMIT_EXCEEDED,
        CommandProblems.SALE_NOT_OPEN,
        CommandProblems.SALE_CLOSED,
        CommandProblems.SALE_PAUSED,
        CommandProblems.RESERVATION_NOT_ACTIVE
      })
  @Problem(status = 422, codes = CommandProblems.RESERVATION_ID_REUSED)
  @Problem(status = 429, codes = CommandProblems.RATE_LIMITED)
  @Problem(
      status = 503,
      codes = {
        CommandProblems.GATE_UNAVAILABLE,
        CommandProblems.EVENT_STORE_UNAVAILABLE,
        CommandProblems.DRAW_IN_PROGRESS
      })
  ResponseEntity<?> reserve(@RequestBody @Valid ReserveRequest request, Principal caller) {
    LoggingContext.reservation(request.reservationId());
    List<ReserveRequest.MergedLine> merged = request.mergedLines();
    rules.check(merged, request.holdSeconds());
    // After validation (an invalid request is a 400, never counted, and no key is built from an
    // unchecked userId); taken by the gate in the call that admits (a refused request changes
    // nothing there), or on a cluster before it.
    RateLimits.Reserving limits = rateLimits.reserving(caller, request.userId());
    List<ReservationLine> lines = merged.stream().map(ReserveRequest.MergedLine::toLine).toList();
    Duration hold =
        request.holdSeconds() == null
            ? rules.defaultHold()
            : Duration.ofSeconds(request.holdSeconds());
    AdmissionDecision decision;
    try {
      decision =
          reservingStock.reserve(
              request.reservationId(), request.userId(), lines, hold, limits.buckets());
    } catch (RecordingFailedException e) {
      throw EventStoreOutage.unavailable(
          "The reservation could not be recorded; nothing was sold. Retry with the same reservationId.");
    }
    return decision.accept(new AdmissionAnswer(request, lines, limits));
  }
}
