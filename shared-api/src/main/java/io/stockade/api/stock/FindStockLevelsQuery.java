package io.stockade.api.stock;

import java.util.List;

/** Asks for the stock of several SKUs; unknown ones are left out of the answer. */
public record FindStockLevelsQuery(List<String> skuIds) {

  public FindStockLevelsQuery {
    skuIds = List.copyOf(skuIds);
  }
}
