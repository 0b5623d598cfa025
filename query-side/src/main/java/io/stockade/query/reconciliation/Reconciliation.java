package io.stockade.query.reconciliation;

import static java.util.stream.Collectors.toSet;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.StreamFold;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.query.reconciliation.ReconciliationReport.Difference;
import io.stockade.query.reconciliation.ReconciliationReport.InFlight;
import io.stockade.query.reconciliation.ReconciliationReport.ReservationMismatch;
import io.stockade.query.reconciliation.ReconciliationReport.Sku;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

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

  private static final int BATCH = 500;

  /** The kinds of work in progress counted per SKU: admissions, gate updates, adjustments. */
  private static final int WORK_KINDS = 3;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final GateReader gateReader;
  private final EventStoreFold fold;
  private final Serializer serializer;
  private final JdbcTemplate jdbc;
  private final NamedParameterJdbcTemplate named;
  private final Duration bound;
  private final Clock clock;

  /**
   * Per SKU (the gate's unexplained difference, and the read model's), and per reservation: the
   * difference seen last and since when it is the same.
   */
  private final Map<String, Seen> gateSeen = new HashMap<>();

  private final Map<String, Seen> readModelSeen = new HashMap<>();

  private final Map<String, Seen> reservationsSeen = new HashMap<>();

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

  private record Seen(Object difference, Instant since, boolean drift) {}

  /** One side of a SKU's comparison: its status, and since when its difference is seen. */
  private record Side(String status, Instant since) {

    static final Side CONSISTENT = new Side(ReconciliationReport.CONSISTENT, null);
    static final Side EXPLAINED = new Side(ReconciliationReport.IN_FLIGHT, null);
    static final Side UNKNOWN = new Side(ReconciliationReport.UNKNOWN, null);

    static Side of(Seen seen) {
      return new Side(
          seen.drift() ? ReconciliationReport.DRIFT : ReconciliationReport.IN_FLIGHT, seen.since());
    }
  }

  /**
   * What the event store holds of one reservation, by global index: its {@code StockReserved}, its
   * {@code StockConfirmed} (with the units it sold, per SKU), the {@code StockReleased} that ended
   * it unpaid, and the NOT_CONFIRMED one that gave back what a partial confirmation did not sell.
   */
  private record Recorded(
      Long reserved,
      Long confirmed,
      Instant confirmedAt,
      Map<String, Long> sold,
      Long released,
      Instant releasedAt,
      Long givenBack) {

    static final Recorded NONE = new Recorded(null, null, null, Map.of(), null, null, null);

    Recorded withReserved(long index) {
      return new Recorded(index, confirmed, confirmedAt, sold, released, releasedAt, givenBack);
    }

    Recorded withConfirmed(long index, Instant at, Map<String, Long> units) {
      return new Recorded(reserved, index, at, units, released, releasedAt, givenBack);
    }

    Recorded withReleased(long index, Instant at) {
      return new Recorded(reserved, confirmed, confirmedAt, sold, index, at, givenBack);
    }

    Recorded withGivenBack(long index) {
      return new Recorded(reserved, confirmed, confirmedAt, sold, released, releasedAt, index);
    }
  }

  /** What one event of a reservation adds to its {@link Recorded}. */
  private static final class Recording implements ReservationEvent.Fold {

    private final long index;
    private final Instant at;
    private Recorded after;

    Recording(Recorded before, long index, Instant at) {
      this.after = before;
      this.index = index;
      this.at = at;
    }

    @Override
    public void on(StockReserved event) {
      after = after.withReserved(index);
    }

    @Override
    public void on(StockConfirmed event) {
      after = after.withConfirmed(index, at, units(event.lines()));
    }

    @Override
    public void on(StockReleased event) {
      after =
          StockReleased.NOT_CONFIRMED.equals(event.reason())
              ? after.withGivenBack(index)
              : after.withReleased(index, at);
    }

    @Override
    public void on(ReservationExtended event) {
      // Not read (see recorded): the hold's end is no part of what the record explains.
    }

    @Override
    public void on(ReservationAbandoned event) {
      // Not read (see recorded): an abandoned admission reserved nothing in the record.
    }
  }

  /** A reservation's row as the mismatches compare it: its status and the units it sold. */
  private record Row(String status, Map<String, Long> sold) {}

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
    this.serializer = serializer;
    this.jdbc = jdbc;
    this.named = new NamedParameterJdbcTemplate(jdbc);
    this.bound = bound;
    this.clock = clock;
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
    Map<String, String> reservedRows = reservedRows();
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

    Map<String, Numbers> explained = new HashMap<>();
    Map<String, int[]> work = new HashMap<>();
    if (gate != null) {
      explain(gate, events, now, explained, work);
    }

    Set<String> skuIds = new TreeSet<>(events.skus().keySet());
    skuIds.addAll(readModel.keySet());
    if (gate != null) {
      skuIds.addAll(gate.skus().keySet());
    }
    List<Sku> skus = new ArrayList<>();
    Map<String, Integer> counts = new HashMap<>();
    for (String skuId : skuIds) {
      Sku sku = sku(skuId, gate, events, readModel, explained, work, now);
      skus.add(sku);
      counts.merge(sku.status(), 1, Integer::sum);
    }
    gateSeen.keySet().retainAll(skuIds);
    readModelSeen.keySet().retainAll(skuIds);
    gauges.forEach((status, value) -> value.set(counts.getOrDefault(status, 0)));

    boolean intentsCompared = gate != null;
    List<ReservationMismatch> mismatches =
        intentsCompared ? reservationMismatches(gate, reservedRows, now) : List.of();

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
      ids.addAll(reservationsSeen.keySet());
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
      Map<String, Numbers> explained,
      Map<String, int[]> work,
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
      Numbers explainedHere = explained.getOrDefault(skuId, Numbers.ZERO);
      int[] counts = work.getOrDefault(skuId, new int[WORK_KINDS]);
      inFlight = new InFlight(counts[0], counts[1], counts[2], explainedHere);
      unexplained = gateDifference.minus(explainedHere);
    }
    Side gateSide;
    if (gate == null) {
      gateSide = Side.UNKNOWN;
    } else if (gateDifference.isZero()) {
      gateSide = Side.CONSISTENT;
      gateSeen.remove(skuId);
    } else if (unexplained.isZero()) {
      gateSide = Side.EXPLAINED;
      gateSeen.remove(skuId);
    } else {
      gateSide = Side.of(judge(gateSeen, skuId, unexplained, now));
    }
    Side readSide;
    if (readDifference == null) {
      readSide = Side.UNKNOWN;
    } else if (readDifference.isZero()) {
      readSide = Side.CONSISTENT;
      readModelSeen.remove(skuId);
    } else {
      readSide = Side.of(judge(readModelSeen, skuId, readDifference, now));
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

  /**
   * Remembers the difference of {@code id}: since when it is the same, and whether it has outlived
   * the bound (counted as a drift detection the first time).
   */
  private Seen judge(Map<String, Seen> memory, String id, Object difference, Instant now) {
    Seen before = memory.get(id);
    Seen seen =
        before != null && before.difference().equals(difference)
            ? before
            : new Seen(difference, now, false);
    if (!seen.drift() && Duration.between(seen.since(), now).compareTo(bound) > 0) {
      seen = new Seen(difference, seen.since(), true);
      if (memory != reservationsSeen) {
        drifts.increment();
      }
    }
    memory.put(id, seen);
    return seen;
  }

  /** The part of each SKU's gate-minus-events difference that work in progress explains. */
  private void explain(
      GateReader.Snapshot gate,
      EventStoreFold.Snapshot events,
      Instant now,
      Map<String, Numbers> explained,
      Map<String, int[]> work) {
    // Per part: a reservation whose SKUs lie in several partitions has an intent record in each,
    // and each part's lines are the units that partition's counters hold (a part still RESERVED
    // while another is already CONFIRMED, say, in the middle of a confirmation).
    List<GateReader.Intent> reserved =
        gate.intents().stream()
            .filter(
                intent ->
                    intent.parts().stream()
                        .anyMatch(part -> GateReader.RESERVED.equals(part.state())))
            .toList();
    Map<String, Recorded> recorded =
        recorded(reserved.stream().map(GateReader.Intent::reservationId).toList());
    Instant youngest = now.minus(bound);
    for (GateReader.Intent intent : reserved) {
      Recorded record = recorded.getOrDefault(intent.reservationId(), Recorded.NONE);
      boolean reservedFolded = record.reserved() != null && events.covers(record.reserved());
      // Counted once per reservation and SKU, however many parts name the SKU.
      Set<String> admitted = new HashSet<>();
      Set<String> toApply = new HashSet<>();
      for (GateReader.Part part : intent.parts()) {
        if (GateReader.RESERVED.equals(part.state())) {
          explain(part, record, reservedFolded, events, youngest, explained, admitted, toApply);
        }
      }
      admitted.forEach(sku -> work.computeIfAbsent(sku, s -> new int[WORK_KINDS])[0]++);
      toApply.forEach(sku -> work.computeIfAbsent(sku, s -> new int[WORK_KINDS])[1]++);
    }
    explainAdjustments(gate, events, explained, work);
  }

  /**
   * What negative adjustments explain: a take the gate lists as pending, younger than the bound by
   * the clock of its Redis, whose {@code StockAdjusted} is not among the events folded (the gate
   * took the units; the record has not yet). Counted once per adjustment, however many partitions
   * it took units in.
   */
  private void explainAdjustments(
      GateReader.Snapshot gate,
      EventStoreFold.Snapshot events,
      Map<String, Numbers> explained,
      Map<String, int[]> work) {
    List<GateReader.PendingAdjustment> young =
        gate.pendingAdjustments().stream()
            .filter(take -> take.pendingFor() < bound.toMillis())
            .toList();
    if (young.isEmpty()) {
      return;
    }
    Map<String, Long> stored =
        adjustmentsStored(young.stream().map(GateReader.PendingAdjustment::skuId).collect(toSet()));
    Set<String> counted = new HashSet<>();
    for (GateReader.PendingAdjustment take : young) {
      String id = take.skuId() + " " + take.adjustmentId();
      Long index = stored.get(id);
      if (index != null && events.covers(index)) {
        continue;
      }
      explained.merge(take.skuId(), new Numbers(-take.units(), -take.units(), 0, 0), Numbers::plus);
      if (counted.add(id)) {
        work.computeIfAbsent(take.skuId(), s -> new int[WORK_KINDS])[2]++;
      }
    }
  }

  /**
   * The global index of every {@code StockAdjusted} of these SKUs in the event store, by {@code
   * "<skuId> <adjustmentId>"}.
   */
  private Map<String, Long> adjustmentsStored(Set<String> skuIds) {
    Map<String, Long> stored = new HashMap<>();
    List<String> streams = skuIds.stream().map(SkuEvent::streamId).toList();
    for (int from = 0; from < streams.size(); from += BATCH) {
      named.query(
          "select global_index, payload, payload_revision from domain_event_entry"
              + " where aggregate_identifier in (:ids) and payload_type = :type",
          Map.of(
              "ids",
              streams.subList(from, Math.min(streams.size(), from + BATCH)),
              "type",
              StockAdjusted.class.getName()),
          rs -> {
            StockAdjusted adjusted =
                serializer.deserialize(
                    new SimpleSerializedObject<>(
                        rs.getBytes(2),
                        byte[].class,
                        StockAdjusted.class.getName(),
                        rs.getString(3)));
            stored.put(adjusted.skuId() + " " + adjusted.adjustmentId(), rs.getLong(1));
          });
    }
    return stored;
  }

  /**
   * What one RESERVED part of an intent explains of its partition's counters. A pending part is
   * young by the clock of its Redis (which timed its admission), not this instance's.
   */
  private void explain(
      GateReader.Part part,
      Recorded record,
      boolean reservedFolded,
      EventStoreFold.Snapshot events,
      Instant youngest,
      Map<String, Numbers> explained,
      Set<String> admitted,
      Set<String> toApply) {
    if (part.pendingFor() != null && !reservedFolded && part.pendingFor() < bound.toMillis()) {
      // Admitted: the gate took the units; the record has not (yet).
      part.lines()
          .forEach(
              (sku, quantity) -> {
                explained.merge(sku, new Numbers(0, -quantity, quantity, 0), Numbers::plus);
                admitted.add(sku);
              });
    }
    if (record.confirmed() != null
        && events.covers(record.confirmed())
        && record.confirmedAt().isAfter(youngest)) {
      // Confirmed in the record; the gate still holds the units as reserved: those sold, and for
      // a partial confirmation those its NOT_CONFIRMED release gave back (stored with it).
      boolean givenBack = record.givenBack() != null && events.covers(record.givenBack());
      part.lines()
          .forEach(
              (sku, quantity) -> {
                long sold = Math.min(quantity, record.sold().getOrDefault(sku, 0L));
                long back = givenBack ? quantity - sold : 0;
                explained.merge(sku, new Numbers(0, -back, sold + back, -sold), Numbers::plus);
                toApply.add(sku);
              });
    } else if (record.released() != null
        && events.covers(record.released())
        && record.releasedAt().isAfter(youngest)) {
      // Released in the record; the gate still holds the units as reserved.
      part.lines()
          .forEach(
              (sku, quantity) -> {
                explained.merge(sku, new Numbers(0, -quantity, quantity, 0), Numbers::plus);
                toApply.add(sku);
              });
    }
  }

  /**
   * The stock events of these reservations in the event store, by global index; a confirmation's
   * and a release's payloads are read for the units sold and the reason (a reservation's is not:
   * its index is all it adds).
   */
  private Map<String, Recorded> recorded(List<String> reservationIds) {
    Map<String, Recorded> recorded = new HashMap<>();
    for (int from = 0; from < reservationIds.size(); from += BATCH) {
      List<String> batch =
          reservationIds.subList(from, Math.min(reservationIds.size(), from + BATCH));
      named.query(
          "select aggregate_identifier, global_index, payload_type, time_stamp,"
              + " case when payload_type <> :reserved then payload end,"
              + " case when payload_type <> :reserved then payload_revision end"
              + " from domain_event_entry where aggregate_identifier in (:ids)"
              + " and payload_type in (:types)",
          Map.of(
              "ids",
              batch.stream().map(ReservationEvent::streamId).toList(),
              "reserved",
              StockReserved.class.getName(),
              "types",
              List.of(
                  StockReserved.class.getName(),
                  StockConfirmed.class.getName(),
                  StockReleased.class.getName())),
          rs -> {
            String id = rs.getString(1).substring(ReservationEvent.STREAM_PREFIX.length());
            long index = rs.getLong(2);
            String type = rs.getString(3);
            Instant at = Instant.parse(rs.getString(4));
            Recorded before = recorded.getOrDefault(id, Recorded.NONE);
            Recorded after;
            if (StockReserved.class.getName().equals(type)) {
              after = before.withReserved(index);
            } else {
              Object payload =
                  serializer.deserialize(
                      new SimpleSerializedObject<>(
                          rs.getBytes(5), byte[].class, type, rs.getString(6)));
              Recording recording = new Recording(before, index, at);
              StreamFold.reservationEvent(payload).applyTo(recording);
              after = recording.after;
            }
            recorded.put(id, after);
          });
    }
    return recorded;
  }

  /** Lines as SKU to units, those of one SKU added up. */
  private static Map<String, Long> units(List<ReservationLine> lines) {
    Map<String, Long> units = new TreeMap<>();
    lines.forEach(line -> units.merge(line.skuId(), (long) line.quantity(), Long::sum));
    return units;
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

  /** The reservations the reservation view holds as RESERVED, with their lines (JSON). */
  private Map<String, String> reservedRows() {
    Map<String, String> rows = new HashMap<>();
    jdbc.query(
        "select reservation_id, lines_json from reservation_view where status = 'RESERVED'",
        rs -> {
          rows.put(rs.getString(1), rs.getString(2));
        });
    return rows;
  }

  /**
   * Intents against the reservation view: every intent read whose reservation's row says otherwise
   * (or is missing), and every row that was RESERVED before the gate was read, is still, and has no
   * intent.
   */
  private List<ReservationMismatch> reservationMismatches(
      GateReader.Snapshot gate, Map<String, String> reservedRows, Instant now) {
    Map<String, GateReader.Intent> intents = new HashMap<>();
    gate.intents().forEach(intent -> intents.put(intent.reservationId(), intent));
    Set<String> ids = new HashSet<>(intents.keySet());
    ids.addAll(reservedRows.keySet());
    Map<String, Row> rows = new HashMap<>();
    List<String> listed = new ArrayList<>(ids);
    for (int from = 0; from < listed.size(); from += BATCH) {
      named.query(
          "select reservation_id, status, confirmed_lines_json from reservation_view"
              + " where reservation_id in (:ids)",
          Map.of("ids", listed.subList(from, Math.min(listed.size(), from + BATCH))),
          rs -> {
            String sold = rs.getString(3);
            rows.put(rs.getString(1), new Row(rs.getString(2), sold == null ? null : units(sold)));
          });
    }
    List<ReservationMismatch> mismatches = new ArrayList<>();
    Set<String> mismatched = new HashSet<>();
    for (String id : ids) {
      GateReader.Intent intent = intents.get(id);
      Row row = rows.get(id);
      String status = row == null ? null : row.status();
      List<String> skuIds = intent == null ? null : List.copyOf(intent.lines().keySet());
      if (intent != null && !agree(intent.state(), status)) {
        mismatches.add(mismatch(id, intent.state(), status, skuIds, null, now));
        mismatched.add(id);
      } else if (intent != null
          && GateReader.CONFIRMED.equals(status)
          && row.sold() != null
          && !intent.sold().equals(row.sold())) {
        // Both confirmed, but the gate sold other units than the record (a partial confirmation
        // applied whole, say): the gate's counters of those SKUs differ too.
        ReconciliationReport.Sold sold = new ReconciliationReport.Sold(intent.sold(), row.sold());
        mismatches.add(mismatch(id, intent.state(), status, skuIds, sold, now));
        mismatched.add(id);
      } else if (intent == null && "RESERVED".equals(status)) {
        // Without an intent, it was RESERVED before the gate was read: its lines were read then.
        mismatches.add(mismatch(id, null, status, skuIds(reservedRows.get(id)), null, now));
        mismatched.add(id);
      }
    }
    reservationsSeen.keySet().retainAll(mismatched);
    mismatches.sort(
        Comparator.comparing(
                (ReservationMismatch m) -> !ReconciliationReport.DRIFT.equals(m.status()))
            .thenComparing(ReservationMismatch::reservationId));
    return mismatches;
  }

  private ReservationMismatch mismatch(
      String reservationId,
      String intent,
      String row,
      List<String> skuIds,
      ReconciliationReport.Sold sold,
      Instant now) {
    Seen seen =
        judge(reservationsSeen, reservationId, sold == null ? intent + "/" + row : sold, now);
    return new ReservationMismatch(
        reservationId,
        intent,
        row,
        skuIds,
        sold,
        seen.drift() ? ReconciliationReport.DRIFT : ReconciliationReport.IN_FLIGHT,
        seen.since());
  }

  /** Whether an intent's state and a row's status say the same (RELEASED covers ABANDONED). */
  private static boolean agree(String intent, String row) {
    if (row == null) {
      return false;
    }
    if ("RELEASED".equals(intent)) {
      return "RELEASED".equals(row) || "ABANDONED".equals(row);
    }
    return intent.equals(row);
  }

  private static List<String> skuIds(String linesJson) {
    List<String> skuIds = new ArrayList<>();
    for (JsonNode line : JSON.readTree(linesJson)) {
      skuIds.add(line.get("skuId").asString());
    }
    return skuIds;
  }

  /** A row's lines (JSON) as SKU to units, those of one SKU added up, none of 0. */
  private static Map<String, Long> units(String linesJson) {
    Map<String, Long> units = new TreeMap<>();
    for (JsonNode line : JSON.readTree(linesJson)) {
      long quantity = line.get("quantity").asLong();
      if (quantity > 0) {
        units.merge(line.get("skuId").asString(), quantity, Long::sum);
      }
    }
    return units;
  }
}
