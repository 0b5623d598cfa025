package io.stockade.query.reconciliation;

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
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The events that tell whether work the gate lists is in progress, read from the event store's
 * table for the reservations and SKUs it names: a reservation's stock events ({@link Recorded}),
 * and a SKU's adjustments, each by global index. Used by {@link InFlightWork}.
 */
final class StoredWork {

  private static final int BATCH = 500;

  private final Serializer serializer;
  private final NamedParameterJdbcTemplate named;

  StoredWork(Serializer serializer, NamedParameterJdbcTemplate named) {
    this.serializer = serializer;
    this.named = named;
  }

  /**
   * What the event store holds of one reservation, by global index: its {@code StockReserved}, its
   * {@code StockConfirmed} (with the units it sold, per SKU), the {@code StockReleased} that ended
   * it unpaid, and the NOT_CONFIRMED one that gave back what a partial confirmation did not sell.
   */
  record Recorded(
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
      // Not read (see reservations): the hold's end is no part of what the record explains.
    }

    @Override
    public void on(ReservationAbandoned event) {
      // Not read (see reservations): an abandoned admission reserved nothing in the record.
    }
  }

  /**
   * The stock events of these reservations in the event store, by global index; a confirmation's
   * and a release's payloads are read for the units sold and the reason (a reservation's is not:
   * its index is all it adds).
   */
  Map<String, Recorded> reservations(List<String> reservationIds) {
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

  /**
   * The global index of every {@code StockAdjusted} of these SKUs in the event store, by {@code
   * "<skuId> <adjustmentId>"}.
   */
  Map<String, Long> adjustments(Set<String> skuIds) {
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

  /** Lines as SKU to units, those of one SKU added up. */
  private static Map<String, Long> units(List<ReservationLine> lines) {
    Map<String, Long> units = new TreeMap<>();
    lines.forEach(line -> units.merge(line.skuId(), (long) line.quantity(), Long::sum));
    return units;
  }
}
