package io.stockade.command.sku;

import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.SkuState;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/skus")
class SkuController {

  private final RegisteringSku registeringSku;

  SkuController(RegisteringSku registeringSku) {
    this.registeringSku = registeringSku;
  }

  record RegisterSkuRequest(
      @NotNull @PositiveOrZero @Max(1_000_000_000) Integer initialStock,
      @Min(0) Integer perUserLimit) {}

  record SkuResponse(String skuId, int initialStock, Integer perUserLimit, long totalStock) {

    static SkuResponse of(SkuState state) {
      return new SkuResponse(
          state.skuId(), state.initialStock(), state.perUserLimit(), state.totalStock());
    }
  }

  @PutMapping("/{skuId}")
  ResponseEntity<SkuResponse> register(
      @PathVariable @Identifier String skuId, @RequestBody @Valid RegisterSkuRequest request) {
    SkuState state;
    try {
      state =
          registeringSku.register(
              new RegisterSkuCommand(skuId, request.initialStock(), request.perUserLimit()));
    } catch (SkuAlreadyRegisteredException e) {
      throw alreadyRegistered(e.existing());
    } catch (GateUnavailableException e) {
      throw ProblemException.unavailable(
          "gate-unavailable",
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
    return new ProblemException(
        HttpStatus.CONFLICT,
        "sku-already-registered",
        "SKU already registered",
        "SKU " + existing.skuId() + " is already registered with other values.",
        facts);
  }
}
