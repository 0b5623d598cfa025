package io.stockade.query.reconciliation;

import io.stockade.query.reconciliation.ReconciliationReport.ReservationMismatch;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The gate's intents against the reservation view: the reservations whose intent and row say
 * otherwise, each IN_FLIGHT while the same mismatch has been seen for no longer than the bound, and
 * DRIFT after (see {@link Reconciliation}). Reads {@code reservation_view}; remembers the
 * mismatches of the check before.
 */
final class ReservationMismatches {

  private static final int BATCH = 500;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** A reservation's row as the mismatches compare it: its status and the units it sold. */
  private record Row(String status, Map<String, Long> sold) {}

  private final JdbcTemplate jdbc;
  private final NamedParameterJdbcTemplate named;

  /** Per reservation: the mismatch seen last and since when it is the same. */
  private final Sightings seen;

  /**
   * A mismatch outliving {@code bound} is DRIFT; it is not counted in {@code
   * stockade.reconciliation.drifts}, which counts SKUs.
   */
  ReservationMismatches(JdbcTemplate jdbc, NamedParameterJdbcTemplate named, Duration bound) {
    this.jdbc = jdbc;
    this.named = named;
    this.seen = new Sightings(bound, () -> {});
  }

  /** The reservations in a mismatch at the check before. */
  Set<String> mismatchedBefore() {
    return seen.ids();
  }

  /** The reservations the reservation view holds as RESERVED, with their lines (JSON). */
  Map<String, String> reservedRows() {
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
  List<ReservationMismatch> compare(
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
    seen.retainAll(mismatched);
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
    Sightings.Seen judged =
        seen.judge(reservationId, sold == null ? intent + "/" + row : sold, now);
    return new ReservationMismatch(
        reservationId,
        intent,
        row,
        skuIds,
        sold,
        judged.drift() ? ReconciliationReport.DRIFT : ReconciliationReport.IN_FLIGHT,
        judged.since());
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
