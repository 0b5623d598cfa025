package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;
import static io.stockade.command.admission.redis.GateScripts.number;

import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.StockAdjustments;
import io.stockade.command.admission.StockAdjustments.Adjustment;
import io.stockade.command.admission.StockAdjustments.AdjustmentOutcome;
import io.stockade.command.admission.StockAdjustments.PendingAdjustment;
import io.stockade.command.admission.StockAdjustments.Settlement;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Stock adjustments in the gate (adjust.lua), once per adjustment id: a positive one adds to the
 * home bucket's available units (after its event is stored, as a replenishment); a negative one
 * takes from available units only, across the SKU's buckets, all or none, before its event is
 * stored, each take left PENDING in its partition until it is marked recorded or given back
 * (adjusted.lua).
 */
public final class GateAdjustments implements StockAdjustments {

  private static final RedisScript<List<Object>> ADJUST = GateScripts.load("adjust");
  private static final RedisScript<List<Object>> ADJUSTED = GateScripts.load("adjusted");
  private static final RedisScript<List<Object>> PENDING = GateScripts.load("pending");

  private static final int APPLIED = 1;
  private static final int DUPLICATE = 2;
  private static final int CONFLICT = 3;
  private static final int UNKNOWN_SKU = 4;
  private static final int INSUFFICIENT = 5;

  private final GateScripts scripts;
  private final GateLayout layout;
  private final BucketPlacements placements;

  GateAdjustments(GateScripts scripts, GateLayout layout, BucketPlacements placements) {
    this.scripts = scripts;
    this.layout = layout;
    this.placements = placements;
  }

  @Override
  public Adjustment adjust(String skuId, String adjustmentId, long quantity, String content) {
    if (quantity == 0) {
      throw new IllegalArgumentException("An adjustment of 0 units");
    }
    try {
      GateSession session = scripts.session();
      return adjustIn(session, skuId, adjustmentId, quantity, content).inEpoch(session.epoch());
    } catch (DataAccessException | GateClosedException e) {
      return new Adjustment(AdjustmentOutcome.UNAVAILABLE, null, null);
    }
  }

  private Adjustment adjustIn(
      GateSession session, String skuId, String adjustmentId, long quantity, String content) {
    List<Partition> buckets = placements.placement(skuId);
    if (quantity > 0 || buckets.size() == 1) {
      List<Object> reply =
          adjustIn(
              session, buckets.get(0), skuId, adjustmentId, quantity, quantity, "exact", content);
      return switch (code(reply)) {
        case APPLIED -> new Adjustment(AdjustmentOutcome.APPLIED, number(reply, 2), null);
        case DUPLICATE -> new Adjustment(AdjustmentOutcome.DUPLICATE, number(reply, 3), null);
        case CONFLICT -> new Adjustment(AdjustmentOutcome.CONFLICT, null, number(reply, 1));
        case UNKNOWN_SKU -> new Adjustment(AdjustmentOutcome.UNKNOWN_SKU, null, null);
        case INSUFFICIENT -> new Adjustment(AdjustmentOutcome.INSUFFICIENT, number(reply, 1), null);
        default -> throw new IllegalStateException("Unknown reply of adjust.lua " + reply);
      };
    }
    return takeAcross(session, buckets, skuId, adjustmentId, quantity, content);
  }

  /**
   * A negative adjustment of a SKU in buckets: first the takes of this id already made (a repeat,
   * or one that stopped halfway), then, bucket by bucket in placement order, as many of the units
   * still wanted as each holds. When all the buckets together hold fewer, the takes of this id
   * still pending are given back and the adjustment is refused. Until then the units taken are
   * available nowhere: a reservation may be refused for want of stock meanwhile, which errs towards
   * not selling.
   */
  private Adjustment takeAcross(
      GateSession session,
      List<Partition> buckets,
      String skuId,
      String adjustmentId,
      long quantity,
      String content) {
    long wanted = -quantity;
    long held = 0;
    List<Partition> free = new ArrayList<>();
    for (Partition partition : buckets) {
      Object record =
          scripts.read(redis -> redis.opsForHash().get(partition.adjustments(skuId), adjustmentId));
      if (record == null) {
        free.add(partition);
        continue;
      }
      String[] fields = record.toString().split(" ");
      if (Long.parseLong(fields[0]) != quantity) {
        return new Adjustment(AdjustmentOutcome.CONFLICT, null, Long.parseLong(fields[0]));
      }
      held += Long.parseLong(fields[1]);
    }
    if (held >= wanted) {
      return new Adjustment(AdjustmentOutcome.DUPLICATE, available(skuId), null);
    }
    for (Partition partition : free) {
      if (held >= wanted) {
        break;
      }
      List<Object> reply =
          adjustIn(
              session, partition, skuId, adjustmentId, quantity, wanted - held, "upto", content);
      switch (code(reply)) {
        case APPLIED -> held += number(reply, 1);
        case DUPLICATE -> held += number(reply, 1);
        case CONFLICT -> {
          giveBackAll(session, buckets, skuId, adjustmentId);
          return new Adjustment(AdjustmentOutcome.CONFLICT, null, number(reply, 1));
        }
        case UNKNOWN_SKU -> {}
        default -> throw new IllegalStateException("Unknown reply of adjust.lua " + reply);
      }
    }
    if (held < wanted) {
      giveBackAll(session, buckets, skuId, adjustmentId);
      return new Adjustment(AdjustmentOutcome.INSUFFICIENT, available(skuId), null);
    }
    return new Adjustment(AdjustmentOutcome.APPLIED, available(skuId), null);
  }

  private void giveBackAll(
      GateSession session, List<Partition> buckets, String skuId, String adjustmentId) {
    for (Partition partition : buckets) {
      settleIn(session, partition, skuId, adjustmentId, "giveback");
    }
  }

  private long available(String skuId) {
    long available = 0;
    for (Partition partition : placements.placement(skuId)) {
      Object units =
          scripts.read(redis -> redis.opsForHash().get(partition.counters(skuId), "available"));
      available += units == null ? 0 : Long.parseLong(units.toString());
    }
    return available;
  }

  private List<Object> adjustIn(
      GateSession session,
      Partition partition,
      String skuId,
      String adjustmentId,
      long quantity,
      long units,
      String mode,
      String content) {
    return scripts.run(
        session,
        partition,
        ADJUST,
        List.of(
            partition.counters(skuId),
            partition.adjustments(skuId),
            partition.adjustmentsPending()),
        adjustmentId,
        quantity,
        Math.abs(units),
        mode,
        content);
  }

  private Settlement settleIn(
      GateSession session, Partition partition, String skuId, String adjustmentId, String action) {
    List<Object> reply =
        scripts.run(
            session,
            partition,
            ADJUSTED,
            List.of(
                partition.counters(skuId),
                partition.adjustments(skuId),
                partition.adjustmentsPending()),
            adjustmentId,
            action);
    return switch (code(reply)) {
      case 1 -> Settlement.DONE;
      case 2 -> Settlement.ALREADY_DONE;
      case 3 -> Settlement.RECORDED;
      case 4 -> Settlement.UNKNOWN;
      default -> throw new IllegalStateException("Unknown reply of adjusted.lua " + reply);
    };
  }

  /**
   * Marks the adjustment's takes recorded (its event is stored), or gives their units back (it was
   * not and will not be), in every bucket of the SKU. Recorded: DONE when any bucket was pending,
   * ALREADY_DONE when every take was recorded before, UNKNOWN when no bucket has a take of the id.
   * Given back: DONE when any units came back, RECORDED when a take's event is stored (nothing
   * given back there), ALREADY_DONE when nothing was pending.
   */
  @Override
  public Settlement adjustmentRecorded(String skuId, String adjustmentId) {
    return settle(skuId, adjustmentId, true);
  }

  @Override
  public Settlement giveBackAdjustment(String skuId, String adjustmentId) {
    return settle(skuId, adjustmentId, false);
  }

  private Settlement settle(String skuId, String adjustmentId, boolean recorded) {
    try {
      GateSession session = scripts.session();
      Settlement result = null;
      for (Partition partition : placements.placement(skuId)) {
        Settlement part =
            settleIn(session, partition, skuId, adjustmentId, recorded ? "recorded" : "giveback");
        result = result == null || part.ordinal() < result.ordinal() ? part : result;
      }
      return result;
    } catch (DataAccessException | GateClosedException e) {
      return Settlement.UNAVAILABLE;
    }
  }

  /**
   * Each partition's adjustment takes pending for at least the bound, by its Redis's clock (the
   * clock that scored them), oldest first over all partitions.
   */
  @Override
  public List<PendingAdjustment> pendingAdjustmentsFor(Duration bound, int limit) {
    GateSession session = scripts.session();
    List<PendingAdjustment> found = new ArrayList<>();
    for (Partition partition : layout.partitions()) {
      List<Object> reply =
          scripts.run(
              session,
              partition,
              PENDING,
              List.of(partition.adjustmentsPending()),
              bound.toMillis(),
              limit);
      for (int i = 1; i + 1 < reply.size(); i += 2) {
        String[] member = String.valueOf(reply.get(i)).split(" ", 2);
        Object content =
            scripts.read(
                redis ->
                    redis
                        .opsForHash()
                        .get(partition.adjustments(member[0]), member[1] + ":content"));
        found.add(
            new PendingAdjustment(
                member[0],
                member[1],
                partition.index(),
                Duration.ofMillis(number(reply, i + 1)),
                content == null ? "" : content.toString(),
                session.epoch()));
      }
    }
    return found.stream()
        .sorted(Comparator.comparing(PendingAdjustment::age).reversed())
        .limit(limit)
        .toList();
  }
}
