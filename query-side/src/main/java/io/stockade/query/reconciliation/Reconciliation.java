package io.stockade.query.reconciliation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.query.reconciliation.ReconciliationReport.Difference;
import io.stockade.query.reconciliation.ReconciliationReport.InFlight;
import io.stockade.query.reconciliation.ReconciliationReport.ReservationMismatch;
import io.stockade.query.reconciliation.ReconciliationReport.Sku;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * One reconciliation check: the gate's counters (Redis) against the numbers folded from the event
 * store and against the read model, per SKU, and the gate's intents against the reservation view.
 *
 * <p>Rule. Equal numbers are CONSISTENT. A difference between gate and events is first reduced by
 * the work in progress the gate itself lists, when younger than the in-flight bound: a pending
 * admission whose {@code StockReserved} is not among the events folded (the gate counts it, the
 * record not yet), its age told by the clock of the Redis that admitted it, and a RESERVED intent
 * whose confirmation or release is among them (the gate's update still to come; for a partial
 * confirmation, the units its {@code StockConfirmed} sold and those its NOT_CONFIRMED release gave
 * back). What that explains entirely is IN_FLIGHT. What remains, and any difference between read
 * model and events, is IN_FLIGHT while the same difference has been seen for no longer than the
 * bound, and DRIFT after. A reservation mismatch is classified the same way. The first sighting of
 * each difference is remembered in memory, so a restart starts the clock again.
 *
 * <p>A comparison that cannot be made is UNKNOWN, never CONSISTENT: while Redis cannot be read the
 * gate's side of a SKU is unknown, and while a replay rebuilds the read model its side is (it is
 * not compared, and neither are the reservations). What was remembered of the side that could not
 * be compared is kept, so that a Redis failing now and then neither hides a drift nor restarts its
 * clock. A SKU's status is the worst of its two sides, in the order DRIFT, UNKNOWN, IN_FLIGHT,
 * CONSISTENT.
 *
 * <p>Full and routine checks. A full check reads every intent the gate keeps (a SCAN of every key:
 * its cost to Redis grows with the day's intents). A routine check reads the counters of every SKU,
 * every partition's marker and pending admissions, and only the intents that can have changed since
 * the check before: those of reservations with events stored since, those that were RESERVED or in
 * a mismatch at the check before, those pending, and those RESERVED in the reservation view. An
 * intent CONFIRMED or RELEASED at the check before, with no event since, can only change by a
 * fault; a full check compares it again. The first check is full, and so is every check while the
 * gate's partitions are not the ones the full check before found open in its epoch.
 *
 * <p>This class runs a check and judges each SKU; what work in progress explains is {@link
 * InFlightWork}'s, the intents against the reservation view {@link ReservationMismatches}', and the
 * memory of each difference {@link Sightings}'.
 */
@Component
class Reconciliation {

  /** At most this many reservation mismatches are listed (DRIFT first); the summary counts all. */
  static final int MISMATCHES_LISTED = 1000;

  /** The statuses, worst last. */
  private static final List<String> BY_SEVERITY =
      List.of(
          ReconciliationReport.CONSISTENT,
          ReconciliationReport.IN_FLIGHT,
          ReconciliationReport.UNKNOWN,
          ReconciliationReport.DRIFT);

  private final GateReader gateReader;
  private final EventStoreFold fold;
  private final JdbcTemplate jdbc;
  private final Duration bound;
  private final Clock clock;
  private final InFlightWork inFlightWork;
  private final ReservationMismatches reservations;

  /**
   * Per SKU, the gate's unexplained difference and the read model's: the difference seen last and
   * since when it is the same.
   */
  private final Sightings gateSeen;

  private final Sightings readModelSeen;

  /** What the last read of the gate found of its layout; null: the next check is full. */
  private GateReader.Layout layout;

  /** The reservations whose intent was RESERVED at the last read of the gate. */
  private Set<String> reservedAtLastRead = Set.of();

  /** Changes of the event store not yet looked at in the gate (kept while Redis cannot be read). */
  private final Set<String> changedReservations = new HashSet<>();

  private final Set<String> changedSkus = new HashSet<>();

  private Instant lastFull;

  private final Map<String, AtomicInteger> gauges = new HashMap<>();
  private final Counter drifts;

  /** One side of a SKU's comparison: its status, and since when its difference is seen. */
  private record Side(String status, Instant since) {

    static final Side CONSISTENT = new Side(ReconciliationReport.CONSISTENT, null);
    static final Side EXPLAINED = new Side(ReconciliationReport.IN_FLIGHT, null);
    static final Side UNKNOWN = new Side(ReconciliationReport.UNKNOWN, null);

    static Side of(Sightings.Seen seen) {
      return new Side(
          seen.drift() ? ReconciliationReport.DRIFT : ReconciliationReport.IN_FLIGHT, seen.since());
    }
  }

  Reconciliation(
      GateReader gateReader,
      EventStoreFold fold,
      @Qualifier("eventSerializer") Serializer serializer,
      JdbcTemplate jdbc,
      MeterRegistry meters,
      Clock clock,
      @Value("${stockade.reconciliation.in-flight-bound:30s}") Duration bound) {
    this.gateReader = gateReader;
    this.fold = fold;
    this.jdbc = jdbc;
    this.bound = bound;
    this.clock = clock;
    NamedParameterJdbcTemplate named = new NamedParameterJdbcTemplate(jdbc);
    this.inFlightWork = new InFlightWork(new StoredWork(serializer, named), bound);
    this.reservations = new ReservationMismatches(jdbc, named, bound);
    for (String status : BY_SEVERITY) {
      AtomicInteger value = new AtomicInteger();
      gauges.put(status, value);
      Gauge.builder("stockade.reconciliation.skus", value, AtomicInteger::get)
          .tag("status", status)
          .description("SKUs per status at the last reconciliation check")
          .register(meters);
    }
    drifts =
        Counter.builder("stockade.reconciliation.drifts")
            .description("SKUs found in DRIFT (counted once per drift, when it is first judged)")
            .register(meters);
    this.gateSeen = new Sightings(bound, drifts::increment);
    this.readModelSeen = new Sightings(bound, drifts::increment);
  }

  Duration bound() {
    return bound;
  }

  /** A routine check now (full when the class comment says so). */
  ReconciliationReport check() {
    return check(false);
  }

  /**
   * Runs a check now, full or routine (full anyway when the class comment says so), listing every
   * reservation mismatch (see {@link ReconciliationReport#narrowed} for the cap). One at a time:
   * the differences remembered belong to one sequence.
   */
  synchronized ReconciliationReport check(boolean full) {
    Instant now = clock.instant();
    // Read before the gate: a row RESERVED now has its intent in the gate when the gate is read.
    Map<String, String> reservedRows = reservations.reservedRows();
    // Redis first, then the events: every gate update follows its event, so an event the gate
    // reflects has been stored before the gate was read, and is folded.
    GateReader.Snapshot gate = null;
    String gateError = null;
    try {
      gate = readGate(full, reservedRows.keySet());
    } catch (RuntimeException unavailable) {
      gateError = unavailable.getClass().getSimpleName() + ": " + unavailable.getMessage();
    }
    EventStoreFold.Snapshot events = fold.catchUp();
    Map<String, Numbers> readModel = readModel();

    InFlightWork.Explained explained =
        gate == null ? InFlightWork.Explained.NOTHING : inFlightWork.explain(gate, events, now);

    Set<String> skuIds = new TreeSet<>(events.skus().keySet());
    skuIds.addAll(readModel.keySet());
    if (gate != null) {
      skuIds.addAll(gate.skus().keySet());
    }
    List<Sku> skus = new ArrayList<>();
    Map<String, Integer> counts = new HashMap<>();
    for (String skuId : skuIds) {
      Sku sku = sku(skuId, gate, events, readModel, explained, now);
      skus.add(sku);
      counts.merge(sku.status(), 1, Integer::sum);
    }
    gateSeen.retainAll(skuIds);
    readModelSeen.retainAll(skuIds);
    gauges.forEach((status, value) -> value.set(counts.getOrDefault(status, 0)));

    boolean intentsCompared = gate != null;
    List<ReservationMismatch> mismatches =
        intentsCompared ? reservations.compare(gate, reservedRows, now) : List.of();

    if (gate != null && gate.full()) {
      lastFull = now;
    }
    ReconciliationReport.Gate gateInfo =
        gate == null
            ? new ReconciliationReport.Gate(
                "UNAVAILABLE", null, null, null, null, lastFull, gateError)
            : new ReconciliationReport.Gate(
                "AVAILABLE",
                gate.marker(),
                gate.full() ? ReconciliationReport.FULL : ReconciliationReport.CHANGED,
                gate.pendingAdmissions(),
                gate.intents().size(),
                lastFull,
                null);
    return new ReconciliationReport(
        now,
        gateInfo,
        new ReconciliationReport.Events(events.head()),
        new ReconciliationReport.ReadModel(ReconciliationReport.COMPARED),
        skus,
        List.copyOf(mismatches),
        new ReconciliationReport.Summary(
            skus.size(),
            counts.getOrDefault(ReconciliationReport.CONSISTENT, 0),
            counts.getOrDefault(ReconciliationReport.IN_FLIGHT, 0),
            counts.getOrDefault(ReconciliationReport.DRIFT, 0),
            counts.getOrDefault(ReconciliationReport.UNKNOWN, 0),
            intentsCompared ? mismatches.size() : null,
            intentsCompared ? mismatches.size() : null));
  }

  /**
   * The gate, read whole or, for a routine check, what can have changed since the last read. The
   * events stored since are read first, for the reservations and SKUs they name; should Redis fail,
   * those stay to be looked at by the next check.
   */
  private GateReader.Snapshot readGate(boolean full, Set<String> reservedRows) {
    GateReader.Snapshot gate = null;
    if (!full && layout != null) {
      fold.catchUp();
      EventStoreFold.Changes changes = fold.takeChanges();
      changedReservations.addAll(changes.reservationIds());
      changedSkus.addAll(changes.skuIds());
      Set<String> ids = new HashSet<>(changedReservations);
      ids.addAll(reservedAtLastRead);
      ids.addAll(reservations.mismatchedBefore());
      ids.addAll(reservedRows);
      Set<String> skuIds = new HashSet<>(changedSkus);
      // A SKU of the record whose counters the gate did not hold at the last read.
      fold.skuIds().stream()
          .filter(sku -> !layout.counterTags().containsKey(sku))
          .forEach(skuIds::add);
      gate = gateReader.readChanged(layout, ids, skuIds);
    } else {
      fold.takeChanges();
    }
    if (gate == null) {
      gate = gateReader.read();
    }
    changedReservations.clear();
    changedSkus.clear();
    layout = gate.layout();
    Set<String> reserved = new HashSet<>();
    for (GateReader.Intent intent : gate.intents()) {
      if (intent.parts().stream().anyMatch(part -> GateReader.RESERVED.equals(part.state()))) {
        reserved.add(intent.reservationId());
      }
    }
    reservedAtLastRead = reserved;
    return gate;
  }

  private Sku sku(
      String skuId,
      GateReader.Snapshot gate,
      EventStoreFold.Snapshot events,
      Map<String, Numbers> readModel,
      InFlightWork.Explained explained,
      Instant now) {
    Numbers fromEvents = events.skus().getOrDefault(skuId, Numbers.ZERO);
    Numbers readDifference =
        readModel == null ? null : readModel.getOrDefault(skuId, Numbers.ZERO).minus(fromEvents);
    Numbers fromGate = null;
    Numbers gateDifference = null;
    Numbers unexplained = null;
    InFlight inFlight = null;
    if (gate != null) {
      fromGate = gate.skus().getOrDefault(skuId, Numbers.ZERO);
      gateDifference = fromGate.minus(fromEvents);
      inFlight = explained.inFlight(skuId);
      unexplained = gateDifference.minus(explained.of(skuId));
    }
    Side gateSide;
    if (gate == null) {
      gateSide = Side.UNKNOWN;
    } else if (gateDifference.isZero()) {
      gateSide = Side.CONSISTENT;
      gateSeen.forget(skuId);
    } else if (unexplained.isZero()) {
      gateSide = Side.EXPLAINED;
      gateSeen.forget(skuId);
    } else {
      gateSide = Side.of(gateSeen.judge(skuId, unexplained, now));
    }
    Side readSide;
    if (readDifference == null) {
      readSide = Side.UNKNOWN;
    } else if (readDifference.isZero()) {
      readSide = Side.CONSISTENT;
      readModelSeen.forget(skuId);
    } else {
      readSide = Side.of(readModelSeen.judge(skuId, readDifference, now));
    }
    Side worse =
        BY_SEVERITY.indexOf(readSide.status()) > BY_SEVERITY.indexOf(gateSide.status())
            ? readSide
            : gateSide;
    Instant since = worse.since();
    Side other = worse == gateSide ? readSide : gateSide;
    if (other.since() != null
        && other.status().equals(worse.status())
        && (since == null || other.since().isBefore(since))) {
      since = other.since();
    }
    return new Sku(
        skuId,
        fromGate,
        fromEvents,
        readModel == null ? null : readModel.get(skuId),
        new Difference(gateDifference, readDifference, inFlight, unexplained),
        worse.status(),
        since);
  }

  private Map<String, Numbers> readModel() {
    Map<String, Numbers> skus = new HashMap<>();
    jdbc.query(
        "select sku_id, total, reserved, sold from stock_level",
        rs -> {
          skus.put(rs.getString(1), Numbers.of(rs.getLong(2), rs.getLong(3), rs.getLong(4)));
        });
    return skus;
  }
}
