package io.stockade.query.stock;

import io.stockade.api.stock.StockLevel;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One SKU's row of the stock read model. */
@Entity
@Table(name = "stock_level")
class StockLevelRow {

  @Id
  @Column(name = "sku_id")
  private String skuId;

  private long total;
  private long available;
  private long reserved;
  private long sold;

  @Column(name = "per_user_limit")
  private Integer perUserLimit;

  @Column(name = "updated_at")
  private Instant updatedAt;

  protected StockLevelRow() {}

  StockLevelRow(String skuId, long initialStock, Integer perUserLimit, Instant at) {
    this.skuId = skuId;
    this.total = initialStock;
    this.available = initialStock;
    this.perUserLimit = perUserLimit;
    this.updatedAt = at;
  }

  void reserve(long quantity, Instant at) {
    available -= quantity;
    reserved += quantity;
    updatedAt = at;
  }

  void confirm(long quantity, Instant at) {
    reserved -= quantity;
    sold += quantity;
    updatedAt = at;
  }

  void release(long quantity, Instant at) {
    reserved -= quantity;
    available += quantity;
    updatedAt = at;
  }

  void replenish(long quantity, Instant at) {
    total += quantity;
    available += quantity;
    updatedAt = at;
  }

  StockLevel toStockLevel() {
    return new StockLevel(skuId, total, available, reserved, sold, perUserLimit, updatedAt);
  }
}
