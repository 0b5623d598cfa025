package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;

import io.stockade.command.admission.redis.GateLayout.Partition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Moves available units between the buckets of a SKU (transfer.lua): a request short in its user's
 * bucket gathers units from the others, and the recovery sweeper finishes the moves left halfway.
 * Each step is one call in one partition, and any number of actors may run a move's steps in any
 * order: the units arrive at most once. It also counts a SKU's units over all its buckets, which
 * alone may call a request sold out.
 */
final class BucketMoves {

  private static final Logger log = LoggerFactory.getLogger(BucketMoves.class);

  private static final RedisScript<List<Object>> TRANSFER = GateScripts.load("transfer");

  /** Replies of transfer.lua: EXPECT's and OUT's success, and IN's for a move not listed. */
  private static final int MOVE_EXPECTED = 1;

  private static final int MOVE_TAKEN = 1;
  private static final int MOVE_GONE = 3;

  /** Reply of transfer.lua's IN: the target has no counters of the SKU. */
  private static final int MOVE_UNKNOWN_SKU = 4;

  /** Reply of transfer.lua's DONE and BACK: this call finished the move in the source. */
  private static final int MOVE_DONE = 1;

  /** Moves settled per partition in one settlement; the next one goes on. */
  private static final int MOVES_PER_SETTLEMENT = 200;

  private final GateScripts scripts;
  private final GateLayout layout;
  private final BucketPlacements placements;

  BucketMoves(GateScripts scripts, GateLayout layout, BucketPlacements placements) {
    this.scripts = scripts;
    this.layout = layout;
    this.placements = placements;
  }

  /**
   * Moves available units of a SKU split into buckets from its other buckets into the user's until
   * that one holds {@code wanted} (transfer.lua: expected by the target, out of the source, into
   * the target once, done, forgotten; a move left halfway is finished by the recovery sweeper).
   *
   * @return false when all the buckets together hold fewer than {@code wanted} units: sold out;
   *     true when the user's bucket may now serve the request
   */
  boolean consolidate(GateSession session, String skuId, String userId, long wanted) {
    List<Partition> placement = placements.placement(skuId);
    int own = GateLayout.bucketOf(userId, placement.size());
    Partition target = placement.get(own);
    long missing = wanted - number(target.counters(skuId), "available");
    for (int step = 1; step < placement.size() && missing > 0; step++) {
      Partition source = placement.get((own + step) % placement.size());
      String member = moveOut(session, skuId, source, target, missing);
      if (member == null) {
        continue;
      }
      settle(session, source, member);
      missing -= Long.parseLong(member.substring(member.lastIndexOf(' ') + 1));
    }
    return missing <= 0 || total(skuId, placement) >= wanted;
  }

  /**
   * The units of a SKU not reserved or sold, over all its buckets, counting those on their way
   * between buckets (outgoing: moved out of one, not yet known to have arrived in another). The
   * buckets are read one by one, so a move that finished between the read of its target and the
   * read of its source would go uncounted: the buckets are read twice, and the second sum counts
   * only when no bucket finished a move in between. When they never settle, the answer is "more
   * than anyone wants": the caller then answers unavailable, never sold out.
   */
  private long total(String skuId, List<Partition> placement) {
    List<Long> before = moves(skuId, placement, new long[1]);
    for (int pass = 0; pass < 5; pass++) {
      long[] total = new long[1];
      List<Long> after = moves(skuId, placement, total);
      if (after.equals(before)) {
        return total[0];
      }
      before = after;
    }
    return Long.MAX_VALUE;
  }

  /** Each bucket's finished moves; adds the units available and outgoing to {@code total[0]}. */
  private List<Long> moves(String skuId, List<Partition> placement, long[] total) {
    List<Long> moves = new ArrayList<>();
    for (Partition bucket : placement) {
      List<Object> fields =
          scripts.read(
              redis ->
                  redis
                      .opsForHash()
                      .multiGet(bucket.counters(skuId), List.of("available", "outgoing", "moves")));
      total[0] += value(fields.get(0)) + value(fields.get(1));
      moves.add(value(fields.get(2)));
    }
    return moves;
  }

  private static long value(Object field) {
    return field == null ? 0 : Long.parseLong(field.toString());
  }

  private long number(String key, String field) {
    Object value = scripts.read(redis -> redis.opsForHash().get(key, field));
    return value == null ? 0 : Long.parseLong(value.toString());
  }

  /**
   * Begins a move: the target expects it under an id of its own, then up to {@code units} available
   * units of the SKU are taken out of its bucket in {@code source}, on their way to its bucket in
   * {@code target}. When the source had no unit the target no longer expects the move; when the
   * answer is lost (Redis failed), it still does, and a move the source did take is finished by the
   * sweeper.
   *
   * @return the move as the source lists it until it is done, or null when nothing is on its way
   */
  String moveOut(
      GateSession session, String skuId, Partition source, Partition target, long units) {
    List<Object> expected =
        scripts.run(
            session,
            target,
            TRANSFER,
            List.of(target.counters(skuId), target.transfersIn(), target.transferSequence()),
            "EXPECT",
            skuId,
            units,
            target.index());
    if (code(expected) != MOVE_EXPECTED) {
      return null;
    }
    String id = String.valueOf(expected.get(1));
    List<Object> out =
        scripts.run(
            session,
            source,
            TRANSFER,
            List.of(source.counters(skuId), source.transfers(), source.transferIds()),
            "OUT",
            id,
            skuId,
            target.index(),
            units);
    if (code(out) == MOVE_TAKEN) {
      return String.valueOf(out.get(2));
    }
    scripts.run(session, target, TRANSFER, List.of(target.transfersIn()), "CANCEL", id);
    return null;
  }

  /**
   * The oldest moves out of {@code source} begun at least {@code bound} ago by the clock of
   * source's Redis (which also timed their start) and not known to be done.
   */
  List<String> movesLeft(GateSession session, Partition source, Duration bound) {
    List<Object> reply =
        scripts.run(
            session,
            source,
            TRANSFER,
            List.of(source.transfers()),
            "LEFT",
            bound.toMillis(),
            MOVES_PER_SETTLEMENT);
    return reply.subList(1, reply.size()).stream().map(String::valueOf).toList();
  }

  /**
   * The steps of a move after OUT: into the target, done in the source, forgotten in the target.
   * Any number of actors may run them, at any time, in any order: the target adds the units only
   * while it expects the move, once. They run in the session the move was found in: a gate rebuilt
   * since has counted the move's units afresh.
   *
   * @return whether this call finished the move in the source (false when it had been finished)
   */
  boolean settle(GateSession session, Partition source, String member) {
    String[] move = member.split(" ");
    String id = move[0];
    String skuId = move[1];
    Partition target = layout.partition(Integer.parseInt(move[2]));
    int in =
        code(
            scripts.run(
                session,
                target,
                TRANSFER,
                List.of(target.counters(skuId), target.transfersIn()),
                "IN",
                id,
                skuId,
                move[3]));
    if (in == MOVE_UNKNOWN_SKU) {
      // The target bucket's counters are gone: the units stay outgoing (sold nowhere) until a
      // rebuild counts them from the record.
      log.warn("Move {} cannot arrive: no counters of {} in partition {}", id, skuId, target.tag());
      return false;
    }
    // APPLIED or ALREADY: the units are there, the source is done with them. GONE: the target
    // forgot the move once the source was done with it; a source that lists it still took its
    // units again for an OUT repeated since (a client's retry), and they go back.
    boolean done =
        code(
                scripts.run(
                    session,
                    source,
                    TRANSFER,
                    List.of(source.counters(skuId), source.transfers(), source.transferIds()),
                    in == MOVE_GONE ? "BACK" : "DONE",
                    member))
            == MOVE_DONE;
    if (in != MOVE_GONE) {
      scripts.run(session, target, TRANSFER, List.of(target.transfersIn()), "FORGET", id);
    }
    return done;
  }
}
