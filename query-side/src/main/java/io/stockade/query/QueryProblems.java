package io.stockade.query;

/**
 * The query side's problem codes. Each is the last part of a problem's {@code type} ({@code
 * https://stockade.io/problems/<code>}) and is named here once: the {@code @Problem} annotations
 * that describe an endpoint's outcomes, the answers that carry them and the metrics' reasons use
 * these constants, and {@code ProblemCatalogueTest} fails on a code written anywhere else or
 * missing from {@code docs/api.md}.
 */
public final class QueryProblems {

  public static final String READ_MODEL_UNAVAILABLE = "read-model-unavailable";

  public static final String RECONCILIATION_RUNNING = "reconciliation-running";

  public static final String REPLAY_IN_PROGRESS = "replay-in-progress";

  public static final String TOO_MANY_STREAMS = "too-many-streams";

  public static final String UNKNOWN_REPLAY = "unknown-replay";

  public static final String UNKNOWN_RESERVATION = "unknown-reservation";

  public static final String UNKNOWN_SKU = "unknown-sku";

  private QueryProblems() {}
}
