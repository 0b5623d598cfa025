package io.stockade.query.stock;

import io.stockade.api.stock.FindStockLevelsQuery;
import io.stockade.api.stock.FindStockQuery;
import io.stockade.api.stock.StockLevel;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;
import org.axonframework.messaging.responsetypes.ResponseTypes;
import org.axonframework.queryhandling.QueryGateway;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/stock")
class StockController {

  private final QueryGateway queries;

  StockController(QueryGateway queries) {
    this.queries = queries;
  }

  @GetMapping("/{skuId}")
  StockLevel stock(@PathVariable @Identifier String skuId) {
    return queries
        .query(new FindStockQuery(skuId), ResponseTypes.optionalInstanceOf(StockLevel.class))
        .join()
        .orElseThrow(
            () ->
                new ProblemException(
                    HttpStatus.NOT_FOUND,
                    "unknown-sku",
                    "Unknown SKU",
                    "SKU " + skuId + " is not in the read model.",
                    Map.of("skuId", skuId)));
  }

  @GetMapping
  List<StockLevel> stock(@RequestParam @NotEmpty @Size(max = 100) List<@Identifier String> skuIds) {
    return queries
        .query(
            new FindStockLevelsQuery(skuIds), ResponseTypes.multipleInstancesOf(StockLevel.class))
        .join();
  }
}
