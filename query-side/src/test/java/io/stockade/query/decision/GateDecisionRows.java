package io.stockade.query.decision;

import java.util.Collection;
import java.util.Comparator;
import org.springframework.jdbc.core.JdbcTemplate;

/** Rows of {@code gate_decision} as the command side writes them, for the tests to seed. */
final class GateDecisionRows {

  /** 2026-11-30T10:00:00Z. */
  static final long T0 = 1_796_032_800_000L;

  /** The SKU view's order: time, the gate's order within a millisecond, bucket, epoch. */
  static final Comparator<Row> SKU_ORDER =
      Comparator.comparingLong(Row::decidedAt)
          .thenComparingLong(Row::entrySeq)
          .thenComparingInt(Row::partition)
          .thenComparingLong(Row::epoch);

  /** The user view's order: time, the gate's order within a millisecond, SKU, bucket, epoch. */
  static final Comparator<Row> USER_ORDER =
      Comparator.comparingLong(Row::decidedAt)
          .thenComparingLong(Row::entrySeq)
          .thenComparing(Row::skuId)
          .thenComparingInt(Row::partition)
          .thenComparingLong(Row::epoch);

  record Row(
      String skuId,
      long decidedAt,
      long entrySeq,
      int partition,
      long epoch,
      long sequence,
      String reservationId,
      String userId,
      int quantity,
      String outcome,
      Long availableAfter) {}

  private GateDecisionRows() {}

  static void insert(JdbcTemplate jdbc, Collection<Row> rows) {
    jdbc.batchUpdate(
        "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
            + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows.stream()
            .map(
                row ->
                    new Object[] {
                      row.skuId(),
                      row.decidedAt(),
                      row.entrySeq(),
                      row.partition(),
                      row.epoch(),
                      row.sequence(),
                      row.reservationId(),
                      row.userId(),
                      row.quantity(),
                      row.outcome(),
                      row.availableAfter()
                    })
            .toList());
  }
}
