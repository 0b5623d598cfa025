package io.stockade.command.sku;

import io.stockade.api.sku.AdjustStockCommand;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.SaleSettings;
import io.stockade.command.CommandProblems;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.draw.DrawQueue;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Running a SKU's sale: its schedule, pause and resume, stock adjustments, the per-user limit, and
 * the SKU as the gate sees it now.
 */
@RestController
@RequestMapping("/api/skus")
class SaleController {

  private final ChangingSale changingSale;
  private final AdjustingStock adjustingStock;
  private final SkuViews views;
  private final DrawQueue draws;

  SaleController(
      ChangingSale changingSale, AdjustingStock adjustingStock, SkuViews views, DrawQueue draws) {
    this.draws = draws;
    this.changingSale = changingSale;
    this.adjustingStock = adjustingStock;
    this.views = views;
  }

  record PauseRequest(@Size(max = 200) String reason) {}

  record LimitRequest(@Min(0) @Max(1_000_000_000) Integer perUserLimit) {}

  /**
   * @param quantity units added (positive) or taken from the available stock (negative)
   * @param note at most 200 characters
   */
  record AdjustRequest(
      @Identifier String adjustmentId,
      @NotNull @Min(-1_000_000_000) @Max(1_000_000_000) Integer quantity,
      @NotNull AdjustmentReason reason,
      @Size(max = 200) String note) {

    @AssertTrue(message = "must not be zero")
    boolean isQuantity() {
      return quantity == null || quantity != 0;
    }
  }

  @GetMapping("/{skuId}")
  @ApiResponse(responseCode = "200", description = "The SKU now", useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(status = 503, codes = CommandProblems.GATE_UNAVAILABLE)
  SkuView sku(@PathVariable @Identifier String skuId) {
    return answered(skuId, () -> views.find(skuId).orElseThrow(() -> unknown(skuId)));
  }

  /**
   * A pre-queue's draw as far as it has gone (api.md 1.2, "Fair start"): its commitment from the
   * schedule on; the seed, the queue and the order once the draw is decided.
   *
   * @param seed hex, {@code null} until the draw is decided
   * @param queued reservations in the pre-queue
   * @param admitted of those, admitted by the draw
   * @param order the queued reservation ids in draw order, empty until the draw is decided
   */
  record DrawView(
      String skuId,
      Instant opensAt,
      String drawCommitment,
      String seed,
      long queued,
      long admitted,
      List<String> order) {}

  @GetMapping("/{skuId}/draw")
  @ApiResponse(responseCode = "200", description = "The SKU's draw", useReturnTypeSchema = true)
  @Problem(
      status = 404,
      codes = {CommandProblems.UNKNOWN_SKU, CommandProblems.NO_DRAW})
  DrawView draw(@PathVariable @Identifier String skuId) {
    if (!views.registered(skuId)) {
      throw unknown(skuId);
    }
    SaleSettings sale = answered(skuId, () -> views.sale(skuId));
    if (sale.drawCommitment() == null) {
      throw new ProblemException(
          HttpStatus.NOT_FOUND,
          CommandProblems.NO_DRAW,
          "No draw",
          "The sale of SKU " + skuId + " has no pre-queue, so no draw.",
          Map.of("skuId", skuId));
    }
    DrawQueue.DrawState draw =
        draws
            .state(sale.opensAt(), skuId)
            .orElseThrow(() -> new IllegalStateException("No seed for " + sale.opensAt()));
    return new DrawView(
        skuId,
        sale.opensAt(),
        draw.drawCommitment(),
        draw.seed(),
        draw.queued(),
        draw.admitted(),
        draw.order());
  }

  @PutMapping("/{skuId}/sale")
  @ApiResponse(responseCode = "200", description = "Scheduled", useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(status = 409, codes = CommandProblems.SALE_ALREADY_OPEN)
  @Problem(
      status = 503,
      codes = {CommandProblems.GATE_UNAVAILABLE, CommandProblems.EVENT_STORE_UNAVAILABLE})
  SkuView schedule(
      @PathVariable @Identifier String skuId, @RequestBody @Valid SaleRequest request) {
    int prequeue = request.prequeueSeconds() == null ? 0 : request.prequeueSeconds();
    try {
      return answered(
          skuId,
          () ->
              changingSale.schedule(skuId, request.opensAt(), request.closesAt(), prequeue).sku());
    } catch (SaleAlreadyOpenException e) {
      Map<String, Object> facts = new LinkedHashMap<>();
      facts.put("skuId", skuId);
      if (e.openedAt() != null) {
        facts.put("opensAt", e.openedAt().toString());
      }
      throw new ProblemException(
          HttpStatus.CONFLICT,
          CommandProblems.SALE_ALREADY_OPEN,
          "Sale already open",
          "The sale of SKU "
              + skuId
              + (e.openedAt() == null
                  ? " is open since its registration"
                  : " opened at " + e.openedAt())
              + "; only its closing time may change. Nothing was changed.",
          facts);
    }
  }

  @PostMapping("/{skuId}/pause")
  @ApiResponse(responseCode = "200", description = "Paused", useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(
      status = 503,
      codes = {CommandProblems.GATE_UNAVAILABLE, CommandProblems.EVENT_STORE_UNAVAILABLE})
  SkuView pause(
      @PathVariable @Identifier String skuId,
      @RequestBody(required = false) @Valid PauseRequest request) {
    String reason = request == null ? null : request.reason();
    return answered(skuId, () -> changingSale.pause(skuId, reason).sku());
  }

  @PostMapping("/{skuId}/resume")
  @ApiResponse(responseCode = "200", description = "Resumed", useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(
      status = 503,
      codes = {CommandProblems.GATE_UNAVAILABLE, CommandProblems.EVENT_STORE_UNAVAILABLE})
  SkuView resume(
      @PathVariable @Identifier String skuId,
      @RequestBody(required = false) @Valid PauseRequest request) {
    return answered(skuId, () -> changingSale.resume(skuId).sku());
  }

  @PutMapping("/{skuId}/limit")
  @ApiResponse(responseCode = "200", description = "Changed", useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(
      status = 503,
      codes = {CommandProblems.GATE_UNAVAILABLE, CommandProblems.EVENT_STORE_UNAVAILABLE})
  SkuView limit(@PathVariable @Identifier String skuId, @RequestBody @Valid LimitRequest request) {
    return answered(skuId, () -> changingSale.limit(skuId, request.perUserLimit()).sku());
  }

  @PostMapping("/{skuId}/adjustments")
  @ApiResponse(responseCode = "201", description = "Adjusted", useReturnTypeSchema = true)
  @ApiResponse(
      responseCode = "200",
      description = "A repeat of a recorded adjustment",
      useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(status = 409, codes = CommandProblems.INSUFFICIENT_STOCK)
  @Problem(status = 422, codes = CommandProblems.ADJUSTMENT_ID_REUSED)
  @Problem(
      status = 503,
      codes = {CommandProblems.GATE_UNAVAILABLE, CommandProblems.EVENT_STORE_UNAVAILABLE})
  ResponseEntity<SkuView> adjust(
      @PathVariable @Identifier String skuId, @RequestBody @Valid AdjustRequest request) {
    AdjustingStock.Adjusted adjusted;
    try {
      adjusted =
          answered(
              skuId,
              () ->
                  adjustingStock.adjust(
                      new AdjustStockCommand(
                          skuId,
                          request.adjustmentId(),
                          request.quantity(),
                          request.reason(),
                          request.note())));
    } catch (AdjustingStock.InsufficientStockException e) {
      throw new ProblemException(
          HttpStatus.CONFLICT,
          CommandProblems.INSUFFICIENT_STOCK,
          "Insufficient stock",
          "Only "
              + e.available()
              + " units of SKU "
              + skuId
              + " are available; reserved and sold units are never adjusted. Nothing was changed.",
          Map.of("skuId", skuId, "available", e.available()));
    } catch (AdjustmentIdReusedException e) {
      throw new ProblemException(
          HttpStatus.UNPROCESSABLE_CONTENT,
          CommandProblems.ADJUSTMENT_ID_REUSED,
          "Adjustment id reused",
          "Adjustment "
              + request.adjustmentId()
              + " was made with other content; nothing was changed.",
          Map.of("adjustmentId", request.adjustmentId(), "recordedQuantity", e.recordedQuantity()));
    }
    return ResponseEntity.status(adjusted.stored() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(adjusted.sku());
  }

  /** What {@code action} answers, with an unknown SKU as 404 and an unreachable gate as 503. */
  private static <T> T answered(String skuId, Supplier<T> action) {
    try {
      return action.get();
    } catch (AggregateNotFoundException e) {
      throw unknown(skuId);
    } catch (GateUnavailableException e) {
      throw ProblemException.unavailable(
          CommandProblems.GATE_UNAVAILABLE,
          "The admission gate cannot answer for SKU "
              + skuId
              + " now; what was recorded stays recorded. Repeat the request: it completes it.",
          1);
    }
  }

  private static ProblemException unknown(String skuId) {
    return new ProblemException(
        HttpStatus.NOT_FOUND,
        CommandProblems.UNKNOWN_SKU,
        "Unknown SKU",
        "SKU " + skuId + " is not registered; nothing was changed.",
        Map.of("skuId", skuId));
  }
}
