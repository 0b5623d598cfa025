package io.stockade.platform.eventstore;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads the event table itself for a fold of the whole store: rows in global-index order, a page at
 * a time by primary key, with plain JDBC, and the payloads of the types asked for decoded once by
 * the event store's own Jackson mapper. Axon's {@code readEvents} builds a tracking token, a
 * message and lazily decoded metadata per event, and runs at a small fraction of a plain scan of
 * the table: this runs near the scan.
 *
 * <p>Gap-aware. An index the fold passes without a row is a gap: a transaction that has not
 * committed yet (or rolled back). The fold's end is a {@link GapAwareTrackingToken} that keeps the
 * gaps of its last {@code maxGapOffset} indices but those below an event stored more than {@link
 * #GAP_TIMEOUT} ago, as Axon's JPA storage engine does, so that whoever reads on from that token (a
 * processor, Axon's {@code readEvents}) still receives an event that commits late below the end,
 * exactly once. The fold itself never sees such an event.
 */
public final class EventTableFold {

  /** Axon's JPA storage engine's defaults: global indices start at 1; gaps kept 10,000 back. */
  public static final long LOWEST_GLOBAL_INDEX = 1;

  public static final int MAX_GAP_OFFSET = 10_000;

  /**
   * Axon's JPA storage engine's gap timeout: a gap below an event stored longer ago than this is no
   * transaction in flight any more, and is dropped.
   */
  public static final Duration GAP_TIMEOUT = Duration.ofSeconds(60);

  private static final String PAGE =
      "select global_index, aggregate_identifier, sequence_number, payload_type, time_stamp,"
          + " payload, event_identifier from domain_event_entry where global_index > ?"
          + " and global_index <= ? order by global_index limit ?";

  /** The same pages with only what a fold of the payloads needs: a third less for the database. */
  private static final String PAYLOAD_PAGE =
      "select global_index, payload_type, time_stamp, payload from domain_event_entry"
          + " where global_index > ? and global_index <= ? order by global_index limit ?";

  /**
   * One stored event: its place in the store, its identifier, its timestamp as stored (ISO-8601)
   * and its payload, decoded.
   */
  public record StoredEvent(
      long globalIndex,
      String aggregateIdentifier,
      long sequenceNumber,
      String timestamp,
      Object payload,
      String eventIdentifier) {

    /** The timestamp, read. */
    public Instant instant() {
      return IsoInstants.parse(timestamp);
    }
  }

  /** One stored event's payload, decoded, and its place in the store. */
  public record StoredPayload(long globalIndex, Object payload) {}

  private final JdbcTemplate jdbc;
  private final ObjectMapper mapper;
  private final int pageSize;
  private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

  public EventTableFold(DataSource dataSource, ObjectMapper mapper, int pageSize) {
    this.jdbc = new JdbcTemplate(dataSource);
    // Its own copy: instants in the store's one format are read on a fast path (IsoInstants).
    this.mapper =
        mapper
            .copy()
            .registerModule(
                new SimpleModule().addDeserializer(Instant.class, new IsoInstants.Deserializer()));
    if (pageSize < 1) {
      throw new IllegalArgumentException("page size " + pageSize + " < 1");
    }
    this.pageSize = pageSize;
  }

  /**
   * Hands {@code sink} every event of the store whose payload type is one of {@code types} (by
   * class name), oldest first, on the calling thread, and answers the position reached: null for an
   * empty store. While the caller decodes and folds one page, another thread reads the next.
   */
  public GapAwareTrackingToken fold(Map<String, Class<?>> types, Consumer<StoredEvent> sink) {
    return fold(
        types,
        false,
        row ->
            sink.accept(
                new StoredEvent(
                    row.index(),
                    row.aggregateIdentifier(),
                    row.sequenceNumber(),
                    row.timestamp(),
                    decode(row.payload(), row.type()),
                    row.eventIdentifier())));
  }

  /**
   * {@link #fold(Map, Consumer)} for a fold that needs only the payloads and their places: the
   * identifiers of the events and their aggregates are not read.
   */
  public GapAwareTrackingToken foldPayloads(
      Map<String, Class<?>> types, Consumer<StoredPayload> sink) {
    return foldPayloads(types, LOWEST_GLOBAL_INDEX - 1, Long.MAX_VALUE, sink);
  }

  /**
   * {@link #foldPayloads(Map, Consumer)} of the events after global index {@code after} and up to
   * {@code upTo} only: a fold that goes on from a checkpoint of an earlier one. The token answered
   * knows only the gaps above {@code after}.
   */
  public GapAwareTrackingToken foldPayloads(
      Map<String, Class<?>> types, long after, long upTo, Consumer<StoredPayload> sink) {
    return fold(
        types,
        true,
        after,
        upTo,
        row -> sink.accept(new StoredPayload(row.index(), decode(row.payload(), row.type()))));
  }

  private GapAwareTrackingToken fold(
      Map<String, Class<?>> types, boolean payloadsOnly, Consumer<Row> sink) {
    return fold(types, payloadsOnly, LOWEST_GLOBAL_INDEX - 1, Long.MAX_VALUE, sink);
  }

  private GapAwareTrackingToken fold(
      Map<String, Class<?>> types,
      boolean payloadsOnly,
      long after,
      long upTo,
      Consumer<Row> sink) {
    BlockingQueue<Page> pages = new ArrayBlockingQueue<>(2);
    AtomicBoolean stopped = new AtomicBoolean();
    Thread reader =
        new Thread(
            () -> read(types, payloadsOnly, after, upTo, pages, stopped), "event-table-fold");
    reader.setDaemon(true);
    reader.start();
    long last = after;
    NavigableSet<Long> gaps = new TreeSet<>();
    try {
      while (true) {
        Page page = pages.take();
        if (page.failure() != null) {
          throw page.failure();
        }
        for (Row row : page.rows()) {
          passed(gaps, last, row.index());
          last = row.index();
          if (row.payload() != null) {
            sink.accept(row);
          }
        }
        gaps.headSet(last - MAX_GAP_OFFSET, false).clear();
        if (!page.rows().isEmpty()) {
          Row newest = page.rows().get(page.rows().size() - 1);
          if (Instant.parse(newest.timestamp()).isBefore(Instant.now().minus(GAP_TIMEOUT))) {
            gaps.headSet(newest.index(), false).clear();
          }
        }
        if (page.last()) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while folding the event store", e);
    } finally {
      stopped.set(true);
      reader.interrupt();
    }
    return last < LOWEST_GLOBAL_INDEX ? null : GapAwareTrackingToken.newInstance(last, gaps);
  }

  /** The highest global index stored now (0 when the store is empty): where a fold will end. */
  public long head() {
    Long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    return head == null ? 0 : head;
  }

  /**
   * One row as read; the payload only of the types asked for, the identifiers only when the fold
   * asked for them.
   */
  private record Row(
      long index,
      String aggregateIdentifier,
      long sequenceNumber,
      String timestamp,
      Class<?> type,
      byte[] payload,
      String eventIdentifier) {}

  /** A page of rows in index order; the last one (shorter than a page), or a failure to read. */
  private record Page(List<Row> rows, boolean last, RuntimeException failure) {}

  /** The reader's loop: pages by primary key, until one comes back short or the fold stops. */
  private void read(
      Map<String, Class<?>> types,
      boolean payloadsOnly,
      long start,
      long upTo,
      BlockingQueue<Page> pages,
      AtomicBoolean stopped) {
    long after = start;
    try {
      while (!stopped.get()) {
        long from = after;
        List<Row> rows = new ArrayList<>(pageSize);
        jdbc.query(
            connection -> {
              PreparedStatement statement =
                  connection.prepareStatement(payloadsOnly ? PAYLOAD_PAGE : PAGE);
              statement.setLong(1, from);
              statement.setLong(2, upTo);
              statement.setInt(3, pageSize);
              return statement;
            },
            rs -> {
              if (payloadsOnly) {
                Class<?> type = types.get(rs.getString(2));
                rows.add(
                    new Row(
                        rs.getLong(1),
                        null,
                        0,
                        rs.getString(3),
                        type,
                        type == null ? null : rs.getBytes(4),
                        null));
              } else {
                Class<?> type = types.get(rs.getString(4));
                rows.add(
                    new Row(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getString(5),
                        type,
                        type == null ? null : rs.getBytes(6),
                        type == null ? null : rs.getString(7)));
              }
            });
        boolean last = rows.size() < pageSize;
        if (!rows.isEmpty()) {
          after = rows.get(rows.size() - 1).index();
        }
        pages.put(new Page(rows, last, null));
        if (last) {
          return;
        }
      }
    } catch (InterruptedException stop) {
      // The fold ended (or failed) first.
    } catch (RuntimeException e) {
      try {
        pages.put(new Page(List.of(), true, e));
      } catch (InterruptedException stop) {
        // The fold ended first.
      }
    }
  }

  /** The indices skipped between {@code last} and {@code index}, at most the last offset's. */
  private static void passed(NavigableSet<Long> gaps, long last, long index) {
    for (long missing = Math.max(last + 1, index - MAX_GAP_OFFSET); missing < index; missing++) {
      gaps.add(missing);
    }
  }

  private Object decode(byte[] payload, Class<?> type) {
    try {
      return readers.computeIfAbsent(type, mapper::readerFor).readValue(payload);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read a payload of " + type.getName(), e);
    }
  }
}
