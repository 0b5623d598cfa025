package io.stockade.command.draw;

import io.stockade.api.draw.DrawSeed;
import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The seeds of the pre-queues' draws (table {@code draw_seed}): one per opening, so that every SKU
 * opening at the same instant with a pre-queue is in one draw, with one commitment, and a
 * reservation of several of them is drawn once. A seed is made the first time a sale is scheduled
 * with a pre-queue for that opening, from {@link java.security.SecureRandom}, and never changes:
 * instances that schedule at once both insert one, the first insert stays and both read it. So the
 * seed is fixed before the pre-queue opens (from the schedule on, which also lets anyone see the
 * commitment before any reservation is queued). It stays in this table, out of every event, until
 * the draw is decided.
 */
@Repository
public class DrawSeeds {

  private final JdbcTemplate jdbc;

  DrawSeeds(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * The commitment of the draw at {@code opensAt} (to the millisecond), its seed made if need be,
   * with {@code skuId} among the SKUs of that draw.
   */
  public String commitmentFor(Instant opensAt, String skuId) {
    long opening = opensAt.toEpochMilli();
    jdbc.update("insert ignore into draw_sku (opens_at, sku_id) values (?, ?)", opening, skuId);
    List<String> made =
        jdbc.queryForList(
            "select commitment from draw_seed where opens_at = ?", String.class, opening);
    if (!made.isEmpty()) {
      return made.get(0);
    }
    DrawSeed fresh = DrawSeed.random();
    jdbc.update(
        "insert into draw_seed (opens_at, seed, commitment) values (?, ?, ?)"
            + " on duplicate key update opens_at = opens_at",
        opening,
        fresh.hex(),
        fresh.commitment());
    return jdbc.queryForObject(
        "select commitment from draw_seed where opens_at = ?", String.class, opening);
  }
}
