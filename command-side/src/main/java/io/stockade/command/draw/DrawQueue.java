package io.stockade.command.draw;

import io.stockade.api.draw.DrawSeed;
import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.DrawRefusals;
import io.stockade.platform.eventstore.EventRows;
import io.stockade.platform.jdbc.DirectParameters;
import io.stockade.platform.jdbc.MultiRowInsert;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.sql.DataSource;
import org.axonframework.config.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The pre-queues in the record: each queued reservation's {@link ReservationQueued} and its row in
 * {@code draw_queue} (with its ticket, the HMAC of its id under the draw's seed, so the draw reads
 * the queue in its order), written in one transaction before the 202; each decision's {@link
 * ReservationDrawn} and the row's position and outcome, written together; and each draw's progress
 * in {@code draw_seed} (started, its drawer's lease, decided).
 *
 * <p>No reservation is queued once its draw has started: a queueing transaction reads the draw's
 * row under a shared lock and queues only while the draw has not started; starting the draw takes
 * the row's exclusive lock, so it waits for every queueing transaction in flight, and the draw
 * reads a queue no transaction adds to any more.
 */
@Repository
public class DrawQueue implements DrawRefusals {

  /** What became of a reservation asked to be queued. */
  public enum Enqueued {
    /** Queued now, or already with the same content. */
    QUEUED,
    /** Queued before with other content. */
    REUSED,
    /** Its draw has started: too late to be queued (the caller answers draw-in-progress). */
    DRAW_STARTED
  }

  /** A queued reservation, with its ticket (its place in the draw order). */
  public record Queued(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Duration hold,
      String fingerprint,
      Instant opensAt,
      String ticket) {}

  /**
   * A decision of the draw, for {@link #decided}.
   *
   * @param refusal a refusal as the gate answers its repeat (reserve.lua's reply), else null
   */
  public record Drawn(Queued queued, long position, String outcome, String skuId, String refusal) {

    public String reservationId() {
      return queued.reservationId();
    }

    public Instant opensAt() {
      return queued.opensAt();
    }
  }

  /** A draw as far as it has gone, for one SKU. */
  public record DrawState(
      String drawCommitment, String seed, long queued, long admitted, List<String> order) {}

  private static final String STREAM_TYPE = ReservationQueued.AGGREGATE_TYPE;

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final EventRows events;
  private final ConcurrentMap<Long, DrawSeed> seeds = new ConcurrentHashMap<>();
  private final ConcurrentMap<Long, String> commitments = new ConcurrentHashMap<>();

  DrawQueue(JdbcTemplate jdbc, DataSource dataSource, Configuration axon) {
    this.jdbc = jdbc;
    this.transactions = new TransactionTemplate(new JdbcTransactionManager(dataSource));
    this.events = new EventRows(axon::eventSerializer);
  }

  /** The commitment of the draw at {@code opensAt} (asked for by every 202). */
  public String commitment(Instant opensAt) {
    return commitments.computeIfAbsent(
        opensAt.toEpochMilli(), opening -> seed(opensAt).commitment());
  }

  /** The queued reservation, if {@code reservationId} was queued for a draw. */
  public Optional<Queued> find(String reservationId) {
    return jdbc
        .query(
            "select * from draw_queue where reservation_id = ?",
            (rs, row) -> queued(rs),
            reservationId)
        .stream()
        .findFirst();
  }

  /** The first undecided reservations of the draw, in the draw's order: where a draw resumes. */
  public List<Queued> undecided(Instant opensAt, int limit) {
    return jdbc.query(
        "select q.* from draw_queue q force index (draw_queue_order) where q.opens_at = ?"
            + " and not exists (select 1 from draw_outcome o"
            + " where o.reservation_id = q.reservation_id)"
            + " order by q.ticket, q.reservation_id limit ?",
        (rs, row) -> queued(rs),
        opensAt.toEpochMilli(),
        limit);
  }

  /**
   * The reservations of the draw after {@code last} in the draw's order (read by its index, not
   * past the decided ones: the draw decides in this order, so everything after the last decided is
   * undecided).
   */
  public List<Queued> after(Queued last, int limit) {
    return jdbc.query(
        // The index's range starts at the last one (key opens_at and ticket): MariaDB otherwise
        // reads the index by opens_at alone, from the draw's first reservation at every batch
        // (quadratic: 0.5 million index entries examined for a draw of 33,000).
        "select * from draw_queue force index (draw_queue_order) where opens_at = ? and ticket >= ?"
            + " and (ticket > ? or reservation_id > ?)"
            + " order by ticket, reservation_id limit ?",
        (rs, row) -> queued(rs),
        last.opensAt().toEpochMilli(),
        last.ticket(),
        last.ticket(),
        last.reservationId(),
        limit);
  }

  /** How many of the draw's reservations are decided: the next decision's position. */
  public long decidedCount(Instant opensAt) {
    Long count =
        jdbc.queryForObject(
            "select count(*) from draw_outcome where opens_at = ?",
            Long.class,
            opensAt.toEpochMilli());
    return count == null ? 0 : count;
  }

  private static final String OUTCOME_COLUMNS =
      "insert into draw_outcome (reservation_id, opens_at, draw_position, outcome, refused_sku,"
          + " refusal) values ";

  private static final String OUTCOME_ROW = "(?, ?, ?, ?, ?, ?)";

  /**
   * Records decisions of the draw: each one's {@link ReservationDrawn} and its row of {@code
   * draw_outcome} (its position and outcome), in one transaction. A decision recorded before (a
   * draw resumed by another instance) fails the whole transaction on the event's unique key, and
   * nothing of it is written.
   */
  public void decided(List<Drawn> drawn) {
    if (drawn.isEmpty()) {
      return;
    }
    List<Object> rows = new ArrayList<>(drawn.size() * 9);
    List<Object> decisions = new ArrayList<>(drawn.size() * 6);
    for (Drawn decision : drawn) {
      Collections.addAll(
          rows,
          events.row(
              STREAM_TYPE,
              ReservationQueued.streamId(decision.reservationId()),
              1,
              new ReservationDrawn(
                  decision.reservationId(),
                  decision.opensAt(),
                  decision.position(),
                  decision.outcome(),
                  decision.skuId())));
      Collections.addAll(
          decisions,
          decision.reservationId(),
          decision.opensAt().toEpochMilli(),
          decision.position(),
          decision.outcome(),
          decision.skuId(),
          decision.refusal());
    }
    transactions.executeWithoutResult(
        status -> {
          DirectParameters.update(
              jdbc,
              MultiRowInsert.sql(EventRows.COLUMNS, EventRows.ROW, drawn.size()),
              rows.toArray());
          DirectParameters.update(
              jdbc,
              MultiRowInsert.sql(OUTCOME_COLUMNS, OUTCOME_ROW, drawn.size()),
              decisions.toArray());
        });
  }

  @Override
  public List<Refusal> refusalsSince(Instant since) {
    return jdbc.query(
        "select q.reservation_id, q.user_id, q.fingerprint, q.reservation_lines, o.refusal"
            + " from draw_outcome o join draw_queue q on q.reservation_id = o.reservation_id"
            + " join draw_seed d on d.opens_at = o.opens_at"
            + " where o.refusal is not null and (d.decided_at is null or d.decided_at > ?)",
        (rs, row) ->
            new Refusal(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                decode(rs.getString(4)),
                rs.getString(5)),
        Timestamp.from(since));
  }

  /** Openings at or before {@code now} whose draw is not decided. */
  public List<Instant> due(Instant now) {
    return jdbc
        .queryForList(
            "select opens_at from draw_seed where opens_at <= ? and decided_at is null"
                + " order by opens_at",
            Long.class,
            now.toEpochMilli())
        .stream()
        .map(Instant::ofEpochMilli)
        .toList();
  }

  /**
   * Takes or renews the lease of the draw at {@code opensAt} for {@code drawer} until {@code
   * until}, starting the draw if it had not started (from then on nothing more is queued for it).
   *
   * @return whether {@code drawer} holds the lease now (false: another instance does, or the draw
   *     is decided)
   */
  public boolean lease(Instant opensAt, String drawer, Instant now, Instant until) {
    return jdbc.update(
            "update draw_seed set started_at = coalesce(started_at, ?), drawer = ?,"
                + " lease_until = ? where opens_at = ? and decided_at is null"
                + " and (drawer is null or drawer = ? or lease_until < ?)",
            Timestamp.from(now),
            drawer,
            Timestamp.from(until),
            opensAt.toEpochMilli(),
            drawer,
            Timestamp.from(now))
        == 1;
  }

  /** The SKUs scheduled into the draw at {@code opensAt}. */
  public List<String> skus(Instant opensAt) {
    return jdbc.queryForList(
        "select sku_id from draw_sku where opens_at = ? order by sku_id",
        String.class,
        opensAt.toEpochMilli());
  }

  /** Of the SKU's queued reservations in the draw: how many, and how many the draw admitted. */
  public long[] counts(Instant opensAt, String skuId) {
    // The admitted by their index (draw_outcome_outcome), each looked up by the SKU's key: not a
    // lookup of every queued reservation's outcome.
    return jdbc.queryForObject(
        "select (select count(*) from draw_queue_sku where opens_at = ? and sku_id = ?),"
            + " (select count(*) from draw_outcome o join draw_queue_sku s"
            + " on s.opens_at = o.opens_at and s.sku_id = ? and s.reservation_id = o.reservation_id"
            + " where o.opens_at = ? and o.outcome = ?)",
        (rs, row) -> new long[] {rs.getLong(1), rs.getLong(2)},
        opensAt.toEpochMilli(),
        skuId,
        skuId,
        opensAt.toEpochMilli(),
        ReservationDrawn.ADMITTED);
  }

  /** Of the draw's queued reservations: how many, and how many the draw admitted. */
  public long[] totals(Instant opensAt) {
    return jdbc.queryForObject(
        "select (select count(*) from draw_queue where opens_at = ?),"
            + " (select count(*) from draw_outcome where opens_at = ? and outcome = ?)",
        (rs, row) -> new long[] {rs.getLong(1), rs.getLong(2)},
        opensAt.toEpochMilli(),
        opensAt.toEpochMilli(),
        ReservationDrawn.ADMITTED);
  }

  /** Marks the draw decided: its seed may be revealed. */
  public void finish(Instant opensAt, long queued, long admitted, Instant now) {
    jdbc.update(
        "update draw_seed set decided_at = coalesce(decided_at, ?), queued = ?, admitted = ?"
            + " where opens_at = ?",
        Timestamp.from(now),
        queued,
        admitted,
        opensAt.toEpochMilli());
  }

  /** The draw's seed, which never changes once made. */
  public DrawSeed seed(Instant opensAt) {
    return seeds.computeIfAbsent(
        opensAt.toEpochMilli(),
        opening ->
            new DrawSeed(
                jdbc.queryForObject(
                    "select seed from draw_seed where opens_at = ?", String.class, opening)));
  }

  /**
   * The SKU's draw at {@code opensAt} as the public may see it: the seed and the order only once it
   * is decided.
   */
  public Optional<DrawState> state(Instant opensAt, String skuId) {
    List<Object[]> draw =
        jdbc.query(
            "select commitment, seed, decided_at from draw_seed where opens_at = ?",
            (rs, row) ->
                new Object[] {rs.getString(1), rs.getString(2), rs.getTimestamp(3) != null},
            opensAt.toEpochMilli());
    if (draw.isEmpty()) {
      return Optional.empty();
    }
    boolean decided = (Boolean) draw.get(0)[2];
    long[] counts = counts(opensAt, skuId);
    List<String> order =
        decided
            ? jdbc.queryForList(
                "select q.reservation_id from draw_queue_sku s"
                    + " join draw_queue q on q.reservation_id = s.reservation_id"
                    + " where s.opens_at = ? and s.sku_id = ? order by q.ticket, q.reservation_id",
                String.class,
                opensAt.toEpochMilli(),
                skuId)
            : List.of();
    return Optional.of(
        new DrawState(
            (String) draw.get(0)[0],
            decided ? (String) draw.get(0)[1] : null,
            counts[0],
            decided ? counts[1] : 0,
            order));
  }

  private static Queued queued(ResultSet rs) throws SQLException {
    return new Queued(
        rs.getString("reservation_id"),
        rs.getString("user_id"),
        decode(rs.getString("reservation_lines")),
        Duration.ofMillis(rs.getLong("hold_ms")),
        rs.getString("fingerprint"),
        Instant.ofEpochMilli(rs.getLong("opens_at")),
        rs.getString("ticket"));
  }

  static String encode(List<ReservationLine> lines) {
    StringBuilder encoded = new StringBuilder();
    for (ReservationLine line : lines) {
      if (encoded.length() > 0) {
        encoded.append(',');
      }
      encoded.append(line.skuId()).append(' ').append(line.quantity());
    }
    return encoded.toString();
  }

  private static List<ReservationLine> decode(String encoded) {
    List<ReservationLine> lines = new ArrayList<>();
    for (String line : encoded.split(",")) {
      int space = line.indexOf(' ');
      lines.add(
          new ReservationLine(
              line.substring(0, space), Integer.parseInt(line.substring(space + 1))));
    }
    return lines;
  }
}
