package io.stockade.client;

import static io.stockade.client.ApiCalls.encode;

import java.net.URI;
import java.time.Instant;
import java.util.List;

/**
 * The command side's calls (port 8080 by default): SKUs, their sales and reservations. Each method
 * returns the answer's body, or throws a {@link StockadeProblemException} for a problem (after the
 * retries of a 503 or 429 the {@link RetryPolicy} allows) or a {@link StockadeClientException} when
 * there was no answer to read. Every command is idempotent by its identifiers, so a call that
 * failed without an answer can be repeated as it was. Thread-safe.
 */
public final class CommandClient {

  record ConfirmBody(List<ReservationLine> lines) {}

  record ExtendBody(long holdSeconds) {}

  record ReleaseBody(String reason) {}

  record PauseBody(String reason) {}

  record LimitBody(Integer perUserLimit) {}

  private final ApiCalls calls;

  private CommandClient(ApiCalls calls) {
    this.calls = calls;
  }

  /** A client of the command side at {@code uri} ({@code http://localhost:8080}). */
  public static CommandClient at(URI uri, ClientSettings settings) {
    return new CommandClient(new ApiCalls(uri, settings));
  }

  /** {@code PUT /api/skus/{skuId}} ({@code admin}): 201 the first time, 200 for a repeat. */
  public RegisteredSku registerSku(String skuId, SkuRegistration registration) {
    return calls.call("PUT", skuPath(skuId), registration, RegisteredSku.class);
  }

  /** {@code POST /api/skus/{skuId}/replenishments} ({@code admin}). */
  public RegisteredSku replenish(String skuId, Replenishment replenishment) {
    return calls.call(
        "POST", skuPath(skuId) + "/replenishments", replenishment, RegisteredSku.class);
  }

  /** {@code GET /api/skus/{skuId}} ({@code admin}, {@code reader}): the gate's view now. */
  public SkuState sku(String skuId) {
    return calls.get(skuPath(skuId), SkuState.class);
  }

  /** {@code GET /api/skus/{skuId}/draw} ({@code admin}, {@code reader}). */
  public Draw draw(String skuId) {
    return calls.get(skuPath(skuId) + "/draw", Draw.class);
  }

  /** {@code PUT /api/skus/{skuId}/sale} ({@code admin}): schedule or change the sale. */
  public SkuState scheduleSale(String skuId, SaleSchedule schedule) {
    return calls.call("PUT", skuPath(skuId) + "/sale", schedule, SkuState.class);
  }

  /** {@code POST /api/skus/{skuId}/pause} ({@code admin}). */
  public SkuState pauseSale(String skuId, String reason) {
    return calls.call("POST", skuPath(skuId) + "/pause", new PauseBody(reason), SkuState.class);
  }

  /** {@code POST /api/skus/{skuId}/resume} ({@code admin}). */
  public SkuState resumeSale(String skuId) {
    return calls.call("POST", skuPath(skuId) + "/resume", null, SkuState.class);
  }

  /** {@code PUT /api/skus/{skuId}/limit} ({@code admin}): null for no limit. */
  public SkuState changePurchaseLimit(String skuId, Integer perUserLimit) {
    return calls.call(
        "PUT", skuPath(skuId) + "/limit", new LimitBody(perUserLimit), SkuState.class);
  }

  /** {@code POST /api/skus/{skuId}/adjustments} ({@code admin}). */
  public SkuState adjustStock(String skuId, Adjustment adjustment) {
    return calls.call("POST", skuPath(skuId) + "/adjustments", adjustment, SkuState.class);
  }

  /**
   * {@code POST /api/reservations} ({@code client}): every line or none. {@code RESERVED} (201, or
   * 200 for a retry: {@link ReservationOutcome#created()} tells them apart), or {@code QUEUED}
   * (202) in a sale's pre-queue.
   */
  public ReservationOutcome reserve(ReservationRequest request) {
    ApiCalls.Answered<ReservationAnswer> answer =
        calls.answer("POST", "/api/reservations", request, ApiCalls.type(ReservationAnswer.class));
    ReservationAnswer body = answer.body();
    return new ReservationOutcome(
        body.reservationId(),
        body.status(),
        body.lines(),
        body.expiresAt(),
        body.opensAt(),
        body.drawCommitment(),
        answer.status() == 201);
  }

  /**
   * The body of {@code POST /api/reservations}'s answer; its status says whether it was created.
   */
  private record ReservationAnswer(
      String reservationId,
      String status,
      List<ReservationLine> lines,
      Instant expiresAt,
      Instant opensAt,
      String drawCommitment) {}

  /** {@code POST /api/reservations/{reservationId}/confirm} ({@code client}): every unit. */
  public Confirmation confirm(String reservationId) {
    return calls.call("POST", reservation(reservationId) + "/confirm", null, Confirmation.class);
  }

  /**
   * A partial confirmation: only these units are sold, every other reserved unit goes back at once.
   */
  public Confirmation confirm(String reservationId, List<ReservationLine> lines) {
    return calls.call(
        "POST",
        reservation(reservationId) + "/confirm",
        new ConfirmBody(List.copyOf(lines)),
        Confirmation.class);
  }

  /** {@code POST /api/reservations/{reservationId}/extend} ({@code client}). */
  public Extension extend(String reservationId, long holdSeconds) {
    return calls.call(
        "POST",
        reservation(reservationId) + "/extend",
        new ExtendBody(holdSeconds),
        Extension.class);
  }

  /** {@code POST /api/reservations/{reservationId}/release} ({@code client}), without a reason. */
  public Release release(String reservationId) {
    return calls.call("POST", reservation(reservationId) + "/release", null, Release.class);
  }

  /** The same with a reason ({@code [A-Z_]{1,32}}, not {@code EXPIRED}), as {@code CANCELLED}. */
  public Release release(String reservationId, String reason) {
    return calls.call(
        "POST", reservation(reservationId) + "/release", new ReleaseBody(reason), Release.class);
  }

  private static String skuPath(String skuId) {
    return "/api/skus/" + encode(skuId);
  }

  private static String reservation(String reservationId) {
    return "/api/reservations/" + encode(reservationId);
  }
}
