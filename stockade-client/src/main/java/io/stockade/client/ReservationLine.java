package io.stockade.client;

/** Units of one SKU. */
public record ReservationLine(String skuId, int quantity) {}
