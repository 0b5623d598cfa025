package io.stockade.command.sku;

import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.ReplenishStockCommand;
import io.stockade.api.sku.SkuState;
import io.stockade.command.CommandProblems;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.util.LinkedHashMap;
import java.util.Map;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/skus")
class SkuController {

  private final RegisteringSku registeringSku;
  private final ReplenishingStock replenishingStock;

  SkuController(RegisteringSku registeringSku, ReplenishingStock replenishingStock) {
    this.registeringSku = registeringSku;
    this.replenishingStock = replenishingStock;
  }

  record ReplenishRequest(
      @Identifier String replenishmentId, @NotNull @Positive @Max(1_000_000) Integer quantity) {}

  @PostMapping("/{skuId}/replenishments")
  @ApiResponse(responseCode = "201", description = "Replenished", useReturnTypeSchema = true)
  @ApiResponse(
      responseCode = "200",
      description = "A repeat of an applied replenishment",
      useReturnTypeSchema = true)
  @Problem(status = 404, codes = CommandProblems.UNKNOWN_SKU)
  @Problem(status = 422, codes = CommandProblems.REPLENISHMENT_ID_REUSED)
  @Problem(status = 503, codes = CommandProblems.EVENT_STORE_UNAVAILABLE)
  ResponseEntity<SkuResponse> replenish(
      @PathVariable @Identifier String skuId, @RequestBody @Valid ReplenishRequest request) {
    SkuState state;
    try {
      state =
          replenishingStock.replenish(
              new ReplenishStockCommand(skuId, request.replenishmentId(), request.quantity()));
    } catch (AggregateNotFoundException e) {
      throw new ProblemException(
          HttpStatus.NOT_FOUND,
          CommandProblems.UNKNOWN_SKU,
          "Unknown SKU",
          "SKU " + skuId + " is not registered; nothing was replenished.",
          Map.of("skuId", skuId));
    } catch (ReplenishmentIdReusedException e) {
      throw new ProblemException(
          HttpStatus.UNPROCESSABLE_CONTENT,
          CommandProblems.REPLENISHMENT_ID_REUSED,
          "Replenishment id reused",
          "Replenishment "
              + request.replenishmentId()
              + " was applied with another quantity; nothing was changed.",
          Map.of(
              "replenishmentId", request.replenishmentId(),
              "appliedQuantity", e.appliedQuantity()));
    }
    return ResponseEntity.status(state.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(SkuResponse.of(state));
  }

  /**
   * @param buckets how many buckets the admission gate splits the stock over: for a hot SKU, so
   *     that its reservations spread over the partitions (and Redis Cluster masters) of the gate;
   *     at most the gate's partitions are used. 1 when not given
   */
  record RegisterSkuRequest(
      @NotNull @PositiveOrZero @Max(1_000_000_000) Integer initialStock,
      @Min(0) Integer perUserLimit,
      @Min(1) @Max(1024) Integer buckets,
      @Valid SaleRequest sale) {}

  record SkuResponse(
      String skuId, int initialStock, Integer perUserLimit, long totalStock, int buckets) {

    static SkuResponse of(SkuState state) {
      return new SkuResponse(
          state.skuId(),
          state.initialStock(),
          state.perUserLimit(),
          state.totalStock(),
          state.buckets());
    }
  }

  @PutMapping("/{skuId}")
  @ApiResponse(responseCode = "201", description = "Registered", useReturnTypeSchema = true)
  @ApiResponse(
      responseCode = "200",
      description = "An identical repeat",
      useReturnTypeSchema = true)
  @Problem(status = 409, codes = CommandProblems.SKU_ALREADY_REGISTERED)
  @Problem(
      status = 503,
      codes = {CommandProblems.GATE_UNAVAILABLE, CommandProblems.EVENT_STORE_UNAVAILABLE})
  ResponseEntity<SkuResponse> register(
      @PathVariable @Identifier String skuId, @RequestBody @Valid RegisterSkuRequest request) {
    SkuState state;
    try {
      state =
          registeringSku.register(
              new RegisterSkuCommand(
                  skuId,
                  request.initialStock(),
                  request.perUserLimit(),
                  request.buckets(),
                  request.sale() == null ? null : request.sale().window()));
    } catch (SkuAlreadyRegisteredException e) {
      throw alreadyRegistered(e.existing());
    } catch (GateUnavailableException e) {
      throw ProblemException.unavailable(
          CommandProblems.GATE_UNAVAILABLE,
          "The SKU is recorded but the admission gate could not be seeded; repeat the request.",
          1);
    }
    return ResponseEntity.status(state.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(SkuResponse.of(state));
  }

  private static ProblemException alreadyRegistered(SkuState existing) {
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("skuId", existing.skuId());
    facts.put("initialStock", existing.initialStock());
    if (existing.perUserLimit() != null) {
      facts.put("perUserLimit", existing.perUserLimit());
    }
    facts.put("buckets", existing.buckets());
    return new ProblemException(
        HttpStatus.CONFLICT,
        CommandProblems.SKU_ALREADY_REGISTERED,
        "SKU already registered",
        "SKU " + existing.skuId() + " is already registered with other values.",
        facts);
  }
}
