package io.stockade.bench.http;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * One closed-loop inserter on a connection of its own: inserts one row after the other until the
 * measured window ends, and times (in microseconds) every insert that began inside the window.
 */
final class Inserter implements Runnable {

  private final Connection connection;
  private final EventRow row;
  private final String table;
  private final long measureFrom;
  private final long measureUntil;
  private final AtomicLong lastEnd;
  private final Histogram latencies = new Histogram(3);
  private volatile Exception failure;

  /**
   * @param lastEnd the latest end of a timed insert over every inserter (System.nanoTime)
   */
  Inserter(
      Connection connection,
      EventRow row,
      String table,
      long measureFrom,
      long measureUntil,
      AtomicLong lastEnd) {
    this.connection = connection;
    this.row = row;
    this.table = table;
    this.measureFrom = measureFrom;
    this.measureUntil = measureUntil;
    this.lastEnd = lastEnd;
  }

  @Override
  public void run() {
    try (connection;
        PreparedStatement insert =
            connection.prepareStatement("INSERT INTO " + table + " " + EventRow.INSERT_COLUMNS)) {
      connection.setAutoCommit(true);
      long begin;
      while ((begin = System.nanoTime()) < measureUntil) {
        row.bind(insert);
        insert.executeUpdate();
        long end = System.nanoTime();
        if (begin >= measureFrom) {
          latencies.recordValue((end - begin) / 1_000);
          lastEnd.accumulateAndGet(end, Math::max);
        }
      }
    } catch (Exception e) {
      failure = e;
    }
  }

  Histogram latencies() {
    return latencies;
  }

  Exception failure() {
    return failure;
  }
}
