package io.stockade.command.admission.redis;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The gate as Lua scripts in Redis ({@code src/main/lua}, assembled into {@code lua/} on the
 * classpath); each operation is one atomic script call per partition it touches. This class only
 * hands each operation to the part that owns it, all of them sharing one session source and one
 * memory of where SKUs lie:
 *
 * <ul>
 *   <li>{@link GateReserve}: reserve, the hot path (parts across partitions, units gathered from
 *       other buckets);
 *   <li>{@link GateTransitions}: confirm, release, extend, withdraw;
 *   <li>{@link GatePending}: the pending list the recovery sweeper works from;
 *   <li>{@link GateStock}: register and replenish;
 *   <li>{@link GateSale}: the sale's schedule, pause and per-user limit, and a SKU's state;
 *   <li>{@link GateAdjustments}: stock adjustments and their pending takes;
 *   <li>{@link BucketMoves} and {@link BucketPlacements}: where a SKU's buckets lie and the moves
 *       of units between them;
 *   <li>{@link GateScripts}: loading and running the scripts in the session's epoch.
 * </ul>
 */
@Component
public class RedisAdmissionGate implements AdmissionGate {

  private final GateScripts scripts;
  private final GateReserve reserve;
  private final GateTransitions transitions;
  private final GatePending pending;
  private final GateStock stock;
  private final BucketMoves moves;
  private final GateSale sale;
  private final GateAdjustments adjustments;

  RedisAdmissionGate(GateSessions sessions, GateLayout layout, GateProperties properties) {
    this.scripts = new GateScripts(sessions);
    BucketPlacements placements = new BucketPlacements(scripts, layout);
    this.moves = new BucketMoves(scripts, layout, placements);
    this.transitions = new GateTransitions(scripts, placements, properties.intentRetention());
    this.reserve =
        new GateReserve(
            scripts, layout, placements, moves, transitions, properties.decisionBacklog());
    this.pending = new GatePending(scripts, layout, placements);
    this.stock = new GateStock(scripts, layout, placements);
    this.sale = new GateSale(scripts, placements);
    this.adjustments = new GateAdjustments(scripts, layout, placements);
  }

  @Override
  public void register(
      String skuId, long initialStock, Integer perUserLimit, int buckets, Schedule schedule) {
    stock.register(skuId, initialStock, perUserLimit, buckets, schedule);
  }

  @Override
  public AdmissionDecision reserve(Admission admission) {
    return reserve.reserve(admission);
  }

  @Override
  public Transition confirm(
      String reservationId,
      AdmissionId admission,
      List<ReservationLine> lines,
      List<ReservationLine> confirmed) {
    return transitions.confirm(reservationId, admission, lines, confirmed);
  }

  @Override
  public Transition extend(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, Instant expiresAt) {
    return transitions.extend(reservationId, admission, lines, expiresAt);
  }

  @Override
  public Transition release(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, String reason) {
    return transitions.release(reservationId, admission, lines, reason);
  }

  @Override
  public Withdrawal withdraw(
      String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    return transitions.withdraw(reservationId, admission, lines);
  }

  @Override
  public void fenced(long gateEpoch) {
    scripts.endSession(gateEpoch);
  }

  @Override
  public void recorded(String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    pending.recorded(reservationId, admission, lines);
  }

  @Override
  public void recorded(Pending entry, AdmissionId admission) {
    pending.recorded(entry, admission);
  }

  @Override
  public List<Pending> pendingFor(Duration bound, int limit) {
    return pending.pendingFor(bound, limit);
  }

  @Override
  public Optional<Intent> intent(Pending entry) {
    return pending.intent(entry);
  }

  @Override
  public int settleTransfers(Duration bound) {
    return moves.settleTransfers(bound);
  }

  @Override
  public Replenishment replenish(String skuId, String replenishmentId, long quantity) {
    return stock.replenish(skuId, replenishmentId, quantity);
  }

  @Override
  public SaleWrite schedule(
      String skuId, long version, Instant opensAt, Instant closesAt, int prequeueSeconds) {
    return sale.schedule(skuId, version, opensAt, closesAt, prequeueSeconds);
  }

  @Override
  public SaleWrite drawn(String skuId, long version, Instant opensAt) {
    return sale.drawn(skuId, version, opensAt);
  }

  @Override
  public AdmissionDecision draw(Admission admission) {
    return reserve.reserve(admission, true);
  }

  @Override
  public List<AdmissionDecision> draw(List<Admission> admissions) {
    return reserve.draw(admissions);
  }

  @Override
  public SaleWrite pause(String skuId, long version, boolean paused) {
    return sale.pause(skuId, version, paused);
  }

  @Override
  public SaleWrite limit(String skuId, long version, Integer perUserLimit) {
    return sale.limit(skuId, version, perUserLimit);
  }

  @Override
  public Optional<SkuState> state(String skuId) {
    return sale.state(skuId);
  }

  @Override
  public Adjustment adjust(String skuId, String adjustmentId, long quantity, String content) {
    return adjustments.adjust(skuId, adjustmentId, quantity, content);
  }

  @Override
  public Settlement adjustmentRecorded(String skuId, String adjustmentId) {
    return adjustments.settle(skuId, adjustmentId, true);
  }

  @Override
  public Settlement giveBackAdjustment(String skuId, String adjustmentId) {
    return adjustments.settle(skuId, adjustmentId, false);
  }

  @Override
  public List<PendingAdjustment> pendingAdjustmentsFor(Duration bound, int limit) {
    return adjustments.pendingFor(bound, limit);
  }
}
