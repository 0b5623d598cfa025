package io.stockade.client;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The problem codes docs/api.md catalogues: the last segment of a problem's {@code type} ({@code
 * https://stockade.io/problems/<code>}). A code this client does not know (a newer service) is
 * {@link #OTHER}; {@link StockadeProblemException#code()} still holds its text.
 */
public enum ProblemCode {
  // Shared by both services.
  INVALID_REQUEST("invalid-request"),
  UNAUTHORIZED("unauthorized"),
  FORBIDDEN("forbidden"),
  BODY_TOO_LARGE("body-too-large"),
  UNSUPPORTED_MEDIA_TYPE("unsupported-media-type"),
  NOT_FOUND("not-found"),
  METHOD_NOT_ALLOWED("method-not-allowed"),
  // The command side.
  SKU_ALREADY_REGISTERED("sku-already-registered"),
  REPLENISHMENT_ID_REUSED("replenishment-id-reused"),
  ADJUSTMENT_ID_REUSED("adjustment-id-reused"),
  RESERVATION_ID_REUSED("reservation-id-reused"),
  INSUFFICIENT_STOCK("insufficient-stock"),
  PURCHASE_LIMIT_EXCEEDED("purchase-limit-exceeded"),
  SALE_NOT_OPEN("sale-not-open"),
  SALE_CLOSED("sale-closed"),
  SALE_PAUSED("sale-paused"),
  SALE_ALREADY_OPEN("sale-already-open"),
  RESERVATION_NOT_ACTIVE("reservation-not-active"),
  UNKNOWN_SKU("unknown-sku"),
  UNKNOWN_RESERVATION("unknown-reservation"),
  NO_DRAW("no-draw"),
  RATE_LIMITED("rate-limited"),
  GATE_UNAVAILABLE("gate-unavailable"),
  EVENT_STORE_UNAVAILABLE("event-store-unavailable"),
  DRAW_IN_PROGRESS("draw-in-progress"),
  // The query side.
  READ_MODEL_UNAVAILABLE("read-model-unavailable"),
  RECONCILIATION_RUNNING("reconciliation-running"),
  REPLAY_IN_PROGRESS("replay-in-progress"),
  TOO_MANY_STREAMS("too-many-streams"),
  UNKNOWN_REPLAY("unknown-replay"),
  /** A code not in this list. */
  OTHER(null);

  private static final Map<String, ProblemCode> BY_TEXT =
      Arrays.stream(values())
          .filter(code -> code.text != null)
          .collect(Collectors.toUnmodifiableMap(code -> code.text, Function.identity()));

  private final String text;

  ProblemCode(String text) {
    this.text = text;
  }

  /** The code as the services write it ({@code insufficient-stock}); null for {@link #OTHER}. */
  public String text() {
    return text;
  }

  /** The code of that text, {@link #OTHER} when it is none of these (or null). */
  public static ProblemCode of(String text) {
    return text == null ? OTHER : BY_TEXT.getOrDefault(text, OTHER);
  }
}
