package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.ReservationTransitions.Withdrawal;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The steps of an admitted reservation, each on every part of it (one per partition its lines may
 * lie in): confirm (whole or in part), release, extend, and the withdrawal of an admission whose
 * storing failed. Each part's step is idempotent and acts only on the admission named, so a repeat
 * completes a part left behind and leaves other admissions of the id alone; the outcome is the
 * worst of the parts'.
 */
public final class GateTransitions implements ReservationTransitions {

  private static final RedisScript<List<Object>> TRANSITION = GateScripts.load("transition");
  private static final RedisScript<List<Object>> EXTEND = GateScripts.load("extend");
  private static final RedisScript<List<Object>> WITHDRAW = GateScripts.load("withdraw");

  /** Replies of transition.lua (and, for UNKNOWN and STALE, of withdraw.lua). */
  private static final int DONE = 1;

  private static final int ALREADY = 2;
  private static final int NOT_ACTIVE = 3;
  private static final int UNKNOWN = 4;
  private static final int STALE = 5;

  /** Reply of transition.lua, withdraw.lua and recorded.lua: the intent is another admission's. */
  private static final int OTHER_ADMISSION = 6;

  private final GateScripts scripts;
  private final BucketPlacements placements;
  private final String retentionMillis;

  GateTransitions(GateScripts scripts, BucketPlacements placements, Duration intentRetention) {
    this.scripts = scripts;
    this.placements = placements;
    this.retentionMillis = String.valueOf(intentRetention.toMillis());
  }

  @Override
  public Transition confirm(
      String reservationId,
      AdmissionId admission,
      List<ReservationLine> lines,
      List<ReservationLine> confirmed) {
    if (confirmed == null) {
      return transition(reservationId, admission, lines, "CONFIRMED", intentLines -> null);
    }
    Map<String, Integer> sold = new HashMap<>();
    confirmed.forEach(line -> sold.merge(line.skuId(), line.quantity(), Integer::sum));
    // Each part checks the units sold of its own lines: a SKU of none of them would go unseen.
    if (!lines.stream().map(ReservationLine::skuId).toList().containsAll(sold.keySet())) {
      throw new IllegalArgumentException("Confirmed SKUs " + sold.keySet() + " not all reserved");
    }
    // Each part is given the units sold of its own lines, in its lines' order.
    return transition(
        reservationId,
        admission,
        lines,
        "CONFIRMED",
        intentLines -> {
          StringBuilder part = new StringBuilder();
          for (ReservationLine line : IntentLines.parse(intentLines)) {
            if (part.length() > 0) {
              part.append(' ');
            }
            part.append(line.skuId()).append(' ').append(sold.getOrDefault(line.skuId(), 0));
          }
          return part.toString();
        });
  }

  @Override
  public Transition release(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, String reason) {
    return transition(reservationId, admission, lines, "RELEASED", intentLines -> reason);
  }

  @Override
  public Transition extend(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, Instant expiresAt) {
    List<Transition> outcomes = new ArrayList<>();
    try {
      GateSession session = scripts.session();
      for (Partition partition : placements.locations(lines)) {
        int code =
            code(
                scripts.run(
                    session,
                    partition,
                    EXTEND,
                    List.of(partition.intent(reservationId)),
                    admission.sequence(),
                    admission.gateEpoch(),
                    expiresAt.toEpochMilli()));
        outcomes.add(transitionOf(code, reservationId));
      }
    } catch (DataAccessException | GateClosedException e) {
      return Transition.UNAVAILABLE;
    }
    return worst(outcomes);
  }

  /**
   * Moves every part of the admission. Each part's move is idempotent, so a part that could not
   * move now (unavailable) is moved by a repeat, which the others answer ALREADY_DONE. The parts of
   * other admissions of the id (in other buckets, or admitted anew after this one's intent expired)
   * are left alone.
   */
  private Transition transition(
      String reservationId,
      AdmissionId admission,
      List<ReservationLine> lines,
      String target,
      Function<String, String> last) {
    List<Transition> outcomes = new ArrayList<>();
    Set<Partition> locations;
    try {
      locations = placements.locations(lines);
    } catch (DataAccessException | GateClosedException e) {
      return Transition.UNAVAILABLE;
    }
    for (Partition partition : locations) {
      outcomes.add(transitionPart(partition, reservationId, admission, target, last));
    }
    return worst(outcomes);
  }

  /** The outcome of a step of every part: the worst of the parts'. */
  private static Transition worst(List<Transition> outcomes) {
    for (Transition worst :
        List.of(
            Transition.UNAVAILABLE,
            Transition.NOT_ACTIVE,
            Transition.DONE,
            Transition.ALREADY_DONE,
            Transition.OTHER_ADMISSION)) {
      if (outcomes.contains(worst)) {
        return worst;
      }
    }
    return Transition.UNKNOWN;
  }

  private Transition transitionPart(
      Partition partition,
      String reservationId,
      AdmissionId admission,
      String target,
      Function<String, String> last) {
    long sequence = admission.sequence();
    long epoch = admission.gateEpoch();
    try {
      int code =
          onIntent(
              partition,
              reservationId,
              TRANSITION,
              List.of(),
              lines -> {
                // The reason of a release, or the units a partial confirmation sells of the part.
                String argument = last.apply(lines.toString());
                return argument == null
                    ? new Object[] {target, sequence, epoch, retentionMillis, lines}
                    : new Object[] {target, sequence, epoch, retentionMillis, lines, argument};
              });
      return transitionOf(code, reservationId);
    } catch (DataAccessException | GateClosedException e) {
      return Transition.UNAVAILABLE;
    }
  }

  private static Transition transitionOf(int code, String reservationId) {
    switch (code) {
      case DONE:
        return Transition.DONE;
      case ALREADY:
        return Transition.ALREADY_DONE;
      case NOT_ACTIVE:
        return Transition.NOT_ACTIVE;
      case UNKNOWN:
        return Transition.UNKNOWN;
      case OTHER_ADMISSION:
        return Transition.OTHER_ADMISSION;
      default:
        throw new IllegalStateException("Unknown reply of the gate for " + reservationId);
    }
  }

  @Override
  public Withdrawal withdraw(
      String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    List<Withdrawal> outcomes = new ArrayList<>();
    Set<Partition> locations;
    try {
      locations = placements.locations(lines);
    } catch (DataAccessException | GateClosedException e) {
      return Withdrawal.UNAVAILABLE;
    }
    for (Partition partition : locations) {
      try {
        outcomes.add(withdrawPart(partition, reservationId, admission));
      } catch (DataAccessException | GateClosedException e) {
        outcomes.add(Withdrawal.UNAVAILABLE);
      }
    }
    for (Withdrawal worst :
        List.of(
            Withdrawal.UNAVAILABLE,
            Withdrawal.OTHERS_RECORDING,
            Withdrawal.NOT_WITHDRAWN,
            Withdrawal.WITHDRAWN,
            Withdrawal.OTHER_ADMISSION)) {
      if (outcomes.contains(worst)) {
        return worst;
      }
    }
    return Withdrawal.UNKNOWN;
  }

  /**
   * Withdraws the admission's part in one partition: also what a refused reservation's own call
   * does with the parts it took before the refusal.
   */
  Withdrawal withdrawPart(Partition partition, String reservationId, AdmissionId admission) {
    int code =
        onIntent(
            partition,
            reservationId,
            WITHDRAW,
            List.of(partition.pending(), partition.decisions()),
            lines -> new Object[] {admission.sequence(), admission.gateEpoch(), lines});
    switch (code) {
      case 1:
        return Withdrawal.WITHDRAWN;
      case 2:
        return Withdrawal.OTHERS_RECORDING;
      case 3:
        return Withdrawal.NOT_WITHDRAWN;
      case UNKNOWN:
        return Withdrawal.UNKNOWN;
      case OTHER_ADMISSION:
        return Withdrawal.OTHER_ADMISSION;
      default:
        throw new IllegalStateException("Unknown reply of withdraw.lua for " + reservationId);
    }
  }

  /**
   * Runs a script over the intent of a reservation's part in one partition: reads the intent's
   * lines, then runs the script with the intent's key, {@code otherKeys}, and the counters and
   * holders of each line, and with the arguments {@code args} makes of the lines as read. The
   * script checks that the lines have not changed in between (they can only if the intent expired
   * and the id was reused) and answers STALE if they have; the read is then repeated.
   *
   * @return the script's reply code, never STALE; UNKNOWN when there is no intent
   */
  private int onIntent(
      Partition partition,
      String reservationId,
      RedisScript<List<Object>> script,
      List<String> otherKeys,
      Function<Object, Object[]> args) {
    String intent = partition.intent(reservationId);
    GateSession session = scripts.session();
    for (int attempt = 0; attempt < 3; attempt++) {
      Object lines = scripts.read(redis -> redis.opsForHash().get(intent, "lines"));
      if (lines == null) {
        return UNKNOWN;
      }
      List<String> keys = new ArrayList<>();
      keys.add(intent);
      keys.addAll(otherKeys);
      for (ReservationLine line : IntentLines.parse(lines.toString())) {
        keys.add(partition.counters(line.skuId()));
        keys.add(partition.holders(line.skuId()));
      }
      int code = code(scripts.run(session, partition, script, keys, args.apply(lines)));
      if (code != STALE) {
        return code;
      }
    }
    throw new IllegalStateException("Intent of " + reservationId + " keeps changing");
  }
}
