package io.stockade.client;

import static io.stockade.client.ApiCalls.encode;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The query side's calls (port 8081 by default): stock, reservations, audits, the gate's decisions,
 * the event feed, replays and the reconciliation. Each method returns the answer's body, or throws
 * a {@link StockadeProblemException} for a problem (after the retries of a 503 the {@link
 * RetryPolicy} allows: a read answers 503 {@code read-model-unavailable} with {@code Retry-After}
 * while its database is out of reach) or a {@link StockadeClientException} when there was no answer
 * to read. The read models follow the events: a reservation just made may be a 404 for a moment.
 * Thread-safe.
 */
public final class QueryClient {

  private final ApiCalls calls;

  private QueryClient(ApiCalls calls) {
    this.calls = calls;
  }

  /** A client of the query side at {@code uri} ({@code http://localhost:8081}). */
  public static QueryClient at(URI uri, ClientSettings settings) {
    return new QueryClient(new ApiCalls(uri, settings));
  }

  /** {@code GET /api/stock/{skuId}}. */
  public Stock stock(String skuId) {
    return calls.get("/api/stock/" + encode(skuId), Stock.class);
  }

  /** {@code GET /api/stock?skuIds=a,b,c} (1 to 100): the SKUs known, unknown ones left out. */
  public List<Stock> stock(List<String> skuIds) {
    String ids = String.join(",", skuIds.stream().map(ApiCalls::encode).toList());
    return calls.<List<Stock>>call(
        "GET", "/api/stock?skuIds=" + ids, null, ApiCalls.listOf(Stock.class));
  }

  /** {@code GET /api/sales?page=&size=}: every SKU's sale, the busiest first. */
  public SalesPage sales(int page, int size) {
    return calls.get(
        "/api/sales" + Query.of().add("page", page).add("size", size), SalesPage.class);
  }

  /**
   * {@code GET /api/stock/{skuId}/stream}: the stock now and after every change, to {@code handler}
   * on the stream's own thread, until the stream is closed or ends.
   */
  public EventStream streamStock(String skuId, Consumer<Stock> handler) {
    return EventStream.open(
        calls.settings().http(),
        calls.streamRequest("/api/stock/" + encode(skuId) + "/stream", Map.of()),
        "stock",
        ApiCalls.type(Stock.class),
        handler);
  }

  /**
   * {@code GET /api/audit/skus/{skuId}?at=&page=&size=}: the SKU as it was at {@code at} (null:
   * now), and one page of its ledger up to then.
   */
  public SkuAudit skuAudit(String skuId, Instant at, int page, int size) {
    return calls.get(
        "/api/audit/skus/"
            + encode(skuId)
            + Query.of().add("at", at).add("page", page).add("size", size),
        SkuAudit.class);
  }

  /** {@code GET /api/reservations/{reservationId}}. */
  public ReservationView reservation(String reservationId) {
    return calls.get("/api/reservations/" + encode(reservationId), ReservationView.class);
  }

  /** {@code GET /api/audit/reservations/{reservationId}}: its events, oldest first. */
  public List<AuditedEvent> reservationAudit(String reservationId) {
    return calls.<List<AuditedEvent>>call(
        "GET",
        "/api/audit/reservations/" + encode(reservationId),
        null,
        ApiCalls.listOf(AuditedEvent.class));
  }

  /** {@code GET /api/audit/skus/{skuId}/decisions}: the gate's decisions of a SKU. */
  public SkuDecisions skuDecisions(String skuId, DecisionQuery query) {
    return calls.get(
        "/api/audit/skus/" + encode(skuId) + "/decisions" + query.parameters(), SkuDecisions.class);
  }

  /**
   * {@code GET /api/audit/skus/{skuId}/decisions?around=sellout}: the page of {@code size} holding
   * the first decision between {@code from} and {@code to} (each null for no bound) that left no
   * unit available; {@link SkuDecisions#sellout} is its position.
   */
  public SkuDecisions skuDecisionsAroundSellout(
      String skuId, Instant from, Instant to, Integer size) {
    String parameters =
        Query.of()
            .add("from", from)
            .add("to", to)
            .add("size", size)
            .add("around", "sellout")
            .toString();
    return calls.get(
        "/api/audit/skus/" + encode(skuId) + "/decisions" + parameters, SkuDecisions.class);
  }

  /** {@code GET /api/audit/users/{userId}/decisions}: one user's decisions over every SKU. */
  public UserDecisions userDecisions(String userId, DecisionQuery query) {
    return calls.get(
        "/api/audit/users/" + encode(userId) + "/decisions" + query.parameters(),
        UserDecisions.class);
  }

  /** {@code GET /api/decisions/rate?minutes=} (1 to 60). */
  public DecisionRates decisionRates(int minutes) {
    return calls.get("/api/decisions/rate?minutes=" + minutes, DecisionRates.class);
  }

  /** {@code GET /api/gate}. */
  public GateState gate() {
    return calls.get("/api/gate", GateState.class);
  }

  /**
   * {@code GET /api/events?after=&limit=}: the events after {@code after} (0 for the beginning), at
   * most {@code limit} (1 to 1000). Ask again after {@link FeedPage#next}; a page may be empty
   * while later events wait for an earlier one to settle.
   */
  public FeedPage events(long after, int limit) {
    return calls.get("/api/events?after=" + after + "&limit=" + limit, FeedPage.class);
  }

  /**
   * {@code GET /api/events/stream}: the events after {@code after} and every new one, to {@code
   * handler} on the stream's own thread. To resume a stream that ended, open another after its
   * {@link EventStream#lastId}.
   */
  public EventStream streamEvents(long after, Consumer<FeedEvent> handler) {
    return EventStream.open(
        calls.settings().http(),
        calls.streamRequest("/api/events/stream?after=" + after, Map.of()),
        "event",
        ApiCalls.type(FeedEvent.class),
        handler);
  }

  /** {@code POST /api/replays} ({@code admin}): 202, the replay runs on. */
  public ReplayStarted startReplay() {
    return calls.call("POST", "/api/replays", null, ReplayStarted.class);
  }

  /** {@code GET /api/replays/{replayId}}. */
  public ReplayStatus replay(String replayId) {
    return calls.get("/api/replays/" + encode(replayId), ReplayStatus.class);
  }

  /**
   * {@code GET /api/reconciliation?full=}: the latest check's report (a full check's when {@code
   * full}).
   */
  public ReconciliationReport reconciliation(boolean full) {
    return calls.get("/api/reconciliation?full=" + full, ReconciliationReport.class);
  }

  /** {@code GET /api/reconciliation/skus/{skuId}?full=}: the same for one SKU. */
  public ReconciliationReport reconciliation(String skuId, boolean full) {
    return calls.get(
        "/api/reconciliation/skus/" + encode(skuId) + "?full=" + full, ReconciliationReport.class);
  }
}
