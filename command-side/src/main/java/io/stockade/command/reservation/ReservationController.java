package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationAbandoned;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.springframework.http.HttpHeaders;
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
    Map<String, Long> merged = new LinkedHashMap<>();
    lines.forEach(line -> merged.merge(line.skuId(), line.quantity().longValue(), Long::sum));
    List<FieldProblem> errors = new ArrayList<>();
    List<ReservationLine> selling = new ArrayList<>();
    int index = 0;
    for (Map.Entry<String, Long> line : merged.entrySet()) {
      if (line.getValue() > rules.maxQuantity()) {
        errors.add(
            new FieldProblem(
                "lines[" + index + "].quantity",
                "at most " + rules.maxQuantity() + " units per SKU (after merging lines)"));
      } else {
        selling.add(new ReservationLine(line.getKey(), line.getValue().intValue()));
      }
      index++;
    }
    if (!errors.isEmpty()) {
      throw ProblemResponses.invalidRequest(errors);
    }
    return selling;
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
    if (request.holdSeconds() > rules.maxHold().toSeconds()) {
      throw ProblemResponses.invalidRequest(
          List.of(
              new FieldProblem(
                  "holdSeconds", "at most " + rules.maxHold().toSeconds() + " seconds")));
    }
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
    checkRules(request, merged);
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
    return decision.accept(new ToResponse(request, lines, limits));
  }

  /**
   * Maps each gate outcome to the contract's answer. Refusals are returned as problem responses,
   * not thrown: a flash sale refuses far more requests than it admits.
   */
  private record ToResponse(
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

  private void checkRules(ReserveRequest request, List<ReserveRequest.MergedLine> merged) {
    List<FieldProblem> errors = new ArrayList<>();
    if (merged.size() > rules.maxLines()) {
      errors.add(
          new FieldProblem("lines", "at most " + rules.maxLines() + " SKUs per reservation"));
    }
    for (int i = 0; i < merged.size(); i++) {
      if (merged.get(i).quantity() > rules.maxQuantity()) {
        errors.add(
            new FieldProblem(
                "lines[" + i + "].quantity",
                "at most " + rules.maxQuantity() + " units per SKU (after merging lines)"));
      }
    }
    if (request.holdSeconds() != null && request.holdSeconds() > rules.maxHold().toSeconds()) {
      errors.add(
          new FieldProblem("holdSeconds", "at most " + rules.maxHold().toSeconds() + " seconds"));
    }
    if (!errors.isEmpty()) {
      throw ProblemResponses.invalidRequest(errors);
    }
  }
}
