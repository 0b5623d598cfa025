package io.stockade.query.stock;

import io.stockade.api.stock.FindStockLevelsQuery;
import io.stockade.api.stock.FindStockQuery;
import io.stockade.api.stock.StockLevel;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;
import org.axonframework.messaging.responsetypes.ResponseTypes;
import org.axonframework.queryhandling.QueryGateway;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

@RestController
@RequestMapping("/api/stock")
class StockController {

  private final QueryGateway queries;
  private final StockStreams streams;
  private final QueueLengths queues;

  StockController(QueryGateway queries, StockStreams streams, QueueLengths queues) {
    this.queries = queries;
    this.streams = streams;
    this.queues = queues;
  }

  @GetMapping("/{skuId}")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_SKU)
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  StockView stock(@PathVariable @Identifier String skuId) {
    StockLevel level =
        queries
            .query(new FindStockQuery(skuId), ResponseTypes.optionalInstanceOf(StockLevel.class))
            .join()
            .orElseThrow(() -> unknown(skuId));
    return queues.views(List.of(level)).get(0);
  }

  private static ProblemException unknown(String skuId) {
    return new ProblemException(
        HttpStatus.NOT_FOUND,
        QueryProblems.UNKNOWN_SKU,
        "Unknown SKU",
        "SKU " + skuId + " is not in the read model.",
        Map.of("skuId", skuId));
  }

  /** Server-sent {@code stock} events: the SKU's numbers now, then after every change. */
  @GetMapping(path = "/{skuId}/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_SKU)
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  SseEmitter stream(@PathVariable @Identifier String skuId) {
    return streams.subscribe(skuId).orElseThrow(() -> unknown(skuId));
  }

  @GetMapping
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  List<StockView> stock(@RequestParam @NotEmpty @Size(max = 100) List<@Identifier String> skuIds) {
    return queues.views(
        queries
            .query(
                new FindStockLevelsQuery(skuIds),
                ResponseTypes.multipleInstancesOf(StockLevel.class))
            .join());
  }
}
