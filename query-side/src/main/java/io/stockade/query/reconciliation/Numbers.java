package io.stockade.query.reconciliation;

/** A SKU's stock numbers; always {@code total = available + reserved + sold}. */
record Numbers(long total, long available, long reserved, long sold) {

  static final Numbers ZERO = new Numbers(0, 0, 0, 0);

  static Numbers of(long total, long reserved, long sold) {
    return new Numbers(total, total - reserved - sold, reserved, sold);
  }

  Numbers plus(Numbers other) {
    return new Numbers(
        total + other.total,
        available + other.available,
        reserved + other.reserved,
        sold + other.sold);
  }

  Numbers minus(Numbers other) {
    return new Numbers(
        total - other.total,
        available - other.available,
        reserved - other.reserved,
        sold - other.sold);
  }

  boolean isZero() {
    return total == 0 && available == 0 && reserved == 0 && sold == 0;
  }
}
