package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;
import static io.stockade.command.admission.redis.GateScripts.instant;
import static io.stockade.command.admission.redis.GateScripts.number;

import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SaleControl.SaleWrite;
import io.stockade.command.admission.SaleControl.SkuState;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A SKU's sale in the gate: its schedule, pause and per-user limit written into every bucket's
 * counters (sale.lua, versioned by the event's sequence number so that a late or repeated write
 * changes nothing), where reserve.lua reads them in the call that takes the units; and the SKU's
 * state as the gate sees it now.
 */
public final class GateSale implements SaleControl {

  private static final RedisScript<List<Object>> SALE = GateScripts.load("sale");
  private static final RedisScript<List<Object>> STATE = GateScripts.load("state");

  private static final String NO_BOUND = "-";

  private final GateScripts scripts;
  private final BucketPlacements placements;

  GateSale(GateScripts scripts, BucketPlacements placements) {
    this.scripts = scripts;
    this.placements = placements;
  }

  @Override
  public SaleWrite schedule(
      String skuId, long version, Instant opensAt, Instant closesAt, int prequeueSeconds) {
    return write(
        skuId,
        "schedule",
        version,
        bound(opensAt),
        bound(closesAt),
        opensAt == null ? 0 : prequeueSeconds * 1000L);
  }

  @Override
  public SaleWrite drawn(String skuId, long version, Instant opensAt) {
    return write(skuId, "drawn", version, opensAt.toEpochMilli());
  }

  @Override
  public SaleWrite pause(String skuId, long version, boolean paused) {
    return write(skuId, "pause", version, paused ? 1 : 0);
  }

  @Override
  public SaleWrite limit(String skuId, long version, Integer perUserLimit) {
    return write(skuId, "limit", version, perUserLimit == null ? -1 : perUserLimit);
  }

  private static Object bound(Instant instant) {
    return instant == null ? NO_BOUND : instant.toEpochMilli();
  }

  /**
   * Writes one part of the sale state into every bucket, home last (as registration seeds them),
   * and answers once all are written: APPLIED when any bucket took it, STALE when every bucket held
   * that version or a newer one already. A bucket that cannot be reached makes it UNAVAILABLE: the
   * buckets written keep the write, and a repeat (same version) completes the others.
   */
  private SaleWrite write(String skuId, String part, long version, Object... values) {
    Object[] args = new Object[2 + values.length];
    args[0] = part;
    args[1] = version;
    System.arraycopy(values, 0, args, 2, values.length);
    try {
      GateSession session = scripts.session();
      List<Partition> buckets = placements.placement(skuId);
      boolean applied = false;
      for (int bucket = buckets.size() - 1; bucket >= 0; bucket--) {
        Partition partition = buckets.get(bucket);
        List<Object> reply =
            scripts.run(session, partition, SALE, List.of(partition.counters(skuId)), args);
        switch (code(reply)) {
          case 1 -> applied = true;
          case 2 -> {}
          case 4 -> {
            return SaleWrite.UNKNOWN_SKU;
          }
          default -> throw new IllegalStateException("Unknown reply of sale.lua " + reply);
        }
      }
      return applied ? SaleWrite.APPLIED : SaleWrite.STALE;
    } catch (DataAccessException | GateClosedException e) {
      return SaleWrite.UNAVAILABLE;
    }
  }

  /**
   * The SKU's counters summed over its buckets (state.lua in each), its sale state and the clock
   * from its home bucket (every bucket holds the same sale state; the home's Redis clock is the one
   * its reservations are decided by, on one Redis the only one). Units being moved between buckets
   * (out of one, not yet into another) are in none of the sums. Empty for an unknown SKU.
   */
  @Override
  public Optional<SkuState> state(String skuId) {
    try {
      GateSession session = scripts.session();
      List<Partition> buckets = placements.placement(skuId);
      List<Object> home = null;
      long available = 0;
      long reserved = 0;
      long sold = 0;
      for (Partition partition : buckets) {
        List<Object> reply =
            scripts.run(session, partition, STATE, List.of(partition.counters(skuId)));
        if (code(reply) == 4) {
          if (home == null) {
            return Optional.empty();
          }
          continue;
        }
        if (code(reply) != 1) {
          throw new IllegalStateException("Unknown reply of state.lua " + reply);
        }
        if (home == null) {
          home = reply;
        }
        available += number(reply, 1);
        reserved += number(reply, 2);
        sold += number(reply, 3);
      }
      long limit = number(home, 4);
      return Optional.of(
          new SkuState(
              skuId,
              available + reserved + sold,
              available,
              reserved,
              sold,
              limit < 0 ? null : limit,
              bound(home, 5),
              bound(home, 6),
              number(home, 7) == 1,
              instant(home, 8)));
    } catch (DataAccessException | GateClosedException e) {
      throw new GateUnavailableException("Gate unreachable while reading " + skuId, e);
    }
  }

  private static Instant bound(List<Object> reply, int index) {
    return number(reply, index) < 0 ? null : instant(reply, index);
  }
}
