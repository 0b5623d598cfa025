package io.stockade.command.admission.redis;

/**
 * The gate's operations as Lua scripts in Redis ({@code src/main/lua}, assembled into {@code lua/}
 * on the classpath), wired together once: each operation is one atomic script call per partition it
 * touches, and every part shares one session source and one memory of where SKUs lie. Each part
 * implements one port of the gate, which its callers hold:
 *
 * <ul>
 *   <li>{@link GateReserve}: reserve and the draw, the hot path (parts across partitions, units
 *       gathered from other buckets);
 *   <li>{@link GateTransitions}: confirm, release, extend, withdraw;
 *   <li>{@link GatePending}: the pending lists the recovery sweeper works from;
 *   <li>{@link GateStock}: register and replenish;
 *   <li>{@link GateSale}: the sale's schedule, pause and per-user limit, and a SKU's state;
 *   <li>{@link GateAdjustments}: stock adjustments and their pending takes.
 * </ul>
 *
 * <p>They share {@link BucketPlacements} and {@link BucketMoves} (where a SKU's buckets lie and the
 * moves of units between them) and {@link GateScripts} (loading and running the scripts in the
 * session's epoch).
 */
public record GateOperations(
    GateReserve reserve,
    GateTransitions transitions,
    GatePending pending,
    GateStock stock,
    GateSale sale,
    GateAdjustments adjustments) {

  /** The parts over one session source, as the service and the benchmarks run them. */
  public static GateOperations wire(
      GateSessions sessions, GateLayout layout, GateProperties properties) {
    GateScripts scripts = new GateScripts(sessions);
    BucketPlacements placements = new BucketPlacements(scripts, layout);
    BucketMoves moves = new BucketMoves(scripts, layout, placements);
    GateTransitions transitions =
        new GateTransitions(scripts, placements, properties.intentRetention());
    return new GateOperations(
        new GateReserve(
            scripts, layout, placements, moves, transitions, properties.decisionBacklog()),
        transitions,
        new GatePending(scripts, layout, placements, moves),
        new GateStock(scripts, layout, placements),
        new GateSale(scripts, placements),
        new GateAdjustments(scripts, layout, placements));
  }
}
