package io.stockade.api.reservation;

/** Units of one SKU in a reservation. */
public record ReservationLine(String skuId, int quantity) {}
