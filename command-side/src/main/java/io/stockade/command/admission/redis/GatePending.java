package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.number;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.PendingAdmissions.Intent;
import io.stockade.command.admission.PendingAdmissions.Pending;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The gate's pending list, each partition's admissions not yet known to be recorded: taking a
 * recorded admission off it (best effort: the sweeper finds what is left), and what the recovery
 * sweeper reads of it (the entries pending too long, by their Redis's clock, and their intents).
 */
public final class GatePending implements PendingAdmissions {

  private static final Logger log = LoggerFactory.getLogger(GatePending.class);

  private static final RedisScript<List<Object>> RECORDED = GateScripts.load("recorded");
  private static final RedisScript<List<Object>> PENDING = GateScripts.load("pending");

  private final GateScripts scripts;
  private final GateLayout layout;
  private final BucketPlacements placements;
  private final BucketMoves moves;

  GatePending(
      GateScripts scripts, GateLayout layout, BucketPlacements placements, BucketMoves moves) {
    this.scripts = scripts;
    this.layout = layout;
    this.placements = placements;
    this.moves = moves;
  }

  /** Finishes the moves left halfway for at least {@code bound}: how many it finished. */
  @Override
  public int settleTransfers(Duration bound) {
    int settled = 0;
    GateSession session = scripts.session();
    for (Partition source : layout.partitions()) {
      for (String member : moves.movesLeft(session, source, bound)) {
        if (moves.settle(session, source, member)) {
          settled++;
        }
      }
    }
    return settled;
  }

  @Override
  public void recorded(String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    Set<Partition> locations;
    try {
      locations = placements.locations(lines);
    } catch (DataAccessException | GateClosedException e) {
      // The sweeper finds it recorded later and clears it then.
      log.debug("Could not clear pending reservation {}", reservationId, e);
      return;
    }
    for (Partition partition : locations) {
      recorded(new Pending(reservationId, partition.index()), admission);
    }
  }

  @Override
  public void recorded(Pending pending, AdmissionId admission) {
    Partition partition = layout.partition(pending.partition());
    try {
      scripts.run(
          scripts.session(),
          partition,
          RECORDED,
          List.of(partition.intent(pending.reservationId()), partition.pending()),
          admission.sequence(),
          admission.gateEpoch());
    } catch (DataAccessException | GateClosedException e) {
      // The sweeper finds it recorded later and clears it then.
      log.debug("Could not clear pending reservation {}", pending.reservationId(), e);
    }
  }

  /**
   * Each partition's oldest entries pending for at least the bound, as its Redis tells their age
   * (pending.lua, by the TIME that also scored them), then the oldest of all. The ages of different
   * partitions come from different servers' clocks; they only order the work.
   */
  @Override
  public List<Pending> pendingFor(Duration bound, int limit) {
    GateSession session = scripts.session();
    List<TypedTuple<Pending>> found = new ArrayList<>();
    for (Partition partition : layout.partitions()) {
      List<Object> reply =
          scripts.run(
              session, partition, PENDING, List.of(partition.pending()), bound.toMillis(), limit);
      for (int i = 1; i + 1 < reply.size(); i += 2) {
        found.add(
            TypedTuple.of(
                new Pending(
                    partition.reservationId(String.valueOf(reply.get(i))), partition.index()),
                (double) number(reply, i + 1)));
      }
    }
    return found.stream()
        .sorted(Comparator.comparing(TypedTuple<Pending>::getScore).reversed())
        .limit(limit)
        .map(TypedTuple::getValue)
        .toList();
  }

  @Override
  public Optional<Intent> intent(Pending pending) {
    String key = layout.partition(pending.partition()).intent(pending.reservationId());
    List<Object> fields =
        scripts.read(
            redis ->
                redis
                    .opsForHash()
                    .multiGet(key, List.of("state", "user", "lines", "sequence", "epoch")));
    if (fields.get(0) == null) {
      return Optional.empty();
    }
    return Optional.of(
        new Intent(
            fields.get(0).toString(),
            String.valueOf(fields.get(1)),
            IntentLines.parse(String.valueOf(fields.get(2))),
            new AdmissionId(
                Long.parseLong(String.valueOf(fields.get(3))),
                fields.get(4) == null
                    ? AdmissionId.UNKNOWN_EPOCH
                    : Long.parseLong(String.valueOf(fields.get(4))))));
  }
}
