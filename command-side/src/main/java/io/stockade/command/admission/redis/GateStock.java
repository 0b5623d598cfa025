package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;

import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.SkuStock.Replenishment;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.util.ArrayList;
import java.util.List;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Stock coming into the gate: a SKU's counters seeded when it is registered (its stock shared out
 * over its buckets), and replenishments added to its home bucket, once per replenishment id.
 */
public final class GateStock implements SkuStock {

  private static final RedisScript<List<Object>> REGISTER = GateScripts.load("register");
  private static final RedisScript<List<Object>> REPLENISH = GateScripts.load("replenish");

  private static final long NO_LIMIT = -1;

  private final GateScripts scripts;
  private final GateLayout layout;
  private final BucketPlacements placements;

  GateStock(GateScripts scripts, GateLayout layout, BucketPlacements placements) {
    this.scripts = scripts;
    this.layout = layout;
    this.placements = placements;
  }

  /**
   * Seeds every bucket's counters, each with its share of the stock (the first ones one unit more
   * when it does not divide evenly). Seeding is idempotent per bucket, so a repeat completes a
   * registration that stopped halfway.
   */
  @Override
  public void register(
      String skuId,
      long initialStock,
      Integer perUserLimit,
      int buckets,
      SkuStock.Schedule schedule) {
    long limit = perUserLimit == null ? NO_LIMIT : perUserLimit;
    List<Object> window =
        schedule == null
            ? List.of()
            : List.of(
                schedule.opensAt() == null ? "-" : schedule.opensAt().toEpochMilli(),
                schedule.closesAt() == null ? "-" : schedule.closesAt().toEpochMilli(),
                schedule.version(),
                schedule.prequeueSeconds() * 1000L);
    List<Partition> placement;
    try {
      GateSession session = scripts.session();
      placement = placements.forRegistration(session, skuId, buckets);
      // The home bucket last: its counters say where the others are, so it says so once they are.
      for (int bucket = placement.size() - 1; bucket >= 0; bucket--) {
        Partition partition = placement.get(bucket);
        List<Object> args = new ArrayList<>();
        args.add(GateLayout.share(initialStock, bucket, placement.size()));
        args.add(limit);
        args.add(GateLayout.recorded(placement));
        args.addAll(window);
        scripts.run(
            session, partition, REGISTER, List.of(partition.counters(skuId)), args.toArray());
      }
    } catch (DataAccessException | GateClosedException e) {
      throw new GateUnavailableException("Gate unreachable while registering " + skuId, e);
    }
    placements.remember(skuId, placement);
  }

  @Override
  public Replenishment replenish(String skuId, String replenishmentId, long quantity) {
    Partition partition = layout.of(skuId);
    try {
      List<Object> reply =
          scripts.run(
              scripts.session(),
              partition,
              REPLENISH,
              List.of(partition.counters(skuId), partition.replenishments(skuId)),
              replenishmentId,
              quantity);
      switch (code(reply)) {
        case 1:
          return Replenishment.APPLIED;
        case 2:
          return Replenishment.DUPLICATE;
        case 3:
          return Replenishment.CONFLICT;
        case 4:
          return Replenishment.UNKNOWN_SKU;
        default:
          throw new IllegalStateException("Unknown reply of replenish.lua " + reply);
      }
    } catch (DataAccessException | GateClosedException e) {
      return Replenishment.UNAVAILABLE;
    }
  }
}
