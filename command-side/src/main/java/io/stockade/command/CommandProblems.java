package io.stockade.command;

/**
 * The command side's problem codes. Each is the last part of a problem's {@code type} ({@code
 * https://stockade.io/problems/<code>}) and is named here once: the {@code @Problem} annotations
 * that describe an endpoint's outcomes, the answers that carry them and the metrics' reasons use
 * these constants, and {@code ProblemCatalogueTest} fails on a code written anywhere else or
 * missing from {@code docs/api.md}.
 */
public final class CommandProblems {

  public static final String ADJUSTMENT_ID_REUSED = "adjustment-id-reused";

  public static final String EVENT_STORE_UNAVAILABLE = "event-store-unavailable";

  public static final String DRAW_IN_PROGRESS = "draw-in-progress";

  public static final String GATE_UNAVAILABLE = "gate-unavailable";

  public static final String INSUFFICIENT_STOCK = "insufficient-stock";

  public static final String NO_DRAW = "no-draw";

  public static final String PURCHASE_LIMIT_EXCEEDED = "purchase-limit-exceeded";

  public static final String RATE_LIMITED = "rate-limited";

  public static final String REPLENISHMENT_ID_REUSED = "replenishment-id-reused";

  public static final String RESERVATION_ID_REUSED = "reservation-id-reused";

  public static final String RESERVATION_NOT_ACTIVE = "reservation-not-active";

  public static final String SALE_ALREADY_OPEN = "sale-already-open";

  public static final String SALE_CLOSED = "sale-closed";

  public static final String SALE_NOT_OPEN = "sale-not-open";

  public static final String SALE_PAUSED = "sale-paused";

  public static final String SKU_ALREADY_REGISTERED = "sku-already-registered";

  public static final String UNKNOWN_RESERVATION = "unknown-reservation";

  public static final String UNKNOWN_SKU = "unknown-sku";

  private CommandProblems() {}
}
