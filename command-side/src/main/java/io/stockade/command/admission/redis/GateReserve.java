package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;
import static io.stockade.command.admission.redis.GateScripts.instant;
import static io.stockade.command.admission.redis.GateScripts.number;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.TokenBucket;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The hot path: answers a reservation (reserve.lua), taking its rate-limit tokens in the first
 * script call. One script call when its lines lie in one partition; otherwise part by part, leaving
 * the parts it took when one is refused; and, for a SKU in buckets, units gathered from the other
 * buckets before a refusal for want of stock is final. It turns every reply into the {@link
 * AdmissionDecision} the caller must handle.
 */
public final class GateReserve implements Reserving {

  private static final Logger log = LoggerFactory.getLogger(GateReserve.class);

  private static final RedisScript<List<Object>> RESERVE = GateScripts.load("reserve");
  private static final RedisScript<List<Object>> DRAW = GateScripts.load("draw");

  /** How often a reservation short in its user's bucket gathers units from the others. */
  private static final int CONSOLIDATIONS = 3;

  /** Replies of reserve.lua that take part in an admission. */
  private static final int ADMITTED = 1;

  private static final int DUPLICATE = 2;

  private final GateScripts scripts;
  private final GateLayout layout;
  private final BucketPlacements placements;
  private final BucketMoves moves;
  private final GateTransitions transitions;
  private final long decisionBacklog;

  GateReserve(
      GateScripts scripts,
      GateLayout layout,
      BucketPlacements placements,
      BucketMoves moves,
      GateTransitions transitions,
      long decisionBacklog) {
    this.scripts = scripts;
    this.layout = layout;
    this.placements = placements;
    this.moves = moves;
    this.transitions = transitions;
    this.decisionBacklog = decisionBacklog;
  }

  /**
   * Admits a reservation whose lines lie in one partition with one script call (a line of a SKU in
   * buckets lies in its user's bucket). Otherwise each partition's part is admitted in turn (in
   * partition order, the first part taking the sequence number the others are given), and a part
   * that is refused makes this call withdraw the parts it took before it answers: once it returns,
   * no part of a refused reservation is held by it. A line refused for want of stock in its user's
   * bucket gathers units from the SKU's other buckets, and the admission is tried again; it is
   * refused as short only when all the buckets together are.
   */
  @Override
  public AdmissionDecision draw(Admission admission) {
    return reserve(admission, true);
  }

  @Override
  public void fenced(long gateEpoch) {
    scripts.endSession(gateEpoch);
  }

  @Override
  public AdmissionDecision reserve(Admission admission) {
    return reserve(admission, false);
  }

  /**
   * As {@link #reserve(Admission)}; {@code drawing} for a call of the pre-queue's draw, which a
   * draw in progress does not hold back and whose refusal the gate keeps (reserve.lua).
   */
  AdmissionDecision reserve(Admission admission, boolean drawing) {
    try {
      GateSession session = scripts.session();
      // Where units may be gathered from other buckets, a refusal for want of stock is tentative
      // until the gathering is done: not recorded as a decision, and asked again as a final one.
      boolean tentative = placements.inBuckets(admission.lines());
      // The first call takes the request's rate-limit tokens; the calls after it take none.
      AdmissionDecision decision =
          admit(session, admission, admission.buckets(), !tentative, drawing);
      for (int round = 0; round < CONSOLIDATIONS; round++) {
        if (!(decision instanceof AdmissionDecision.Insufficient insufficient)
            || placements.placement(insufficient.skuId()).size() == 1) {
          return finalDecision(session, admission, decision, tentative, drawing);
        }
        long wanted = admission.lines().get(insufficient.lineIndex()).quantity();
        if (!moves.consolidate(session, insufficient.skuId(), admission.userId(), wanted)) {
          return finalDecision(session, admission, decision, tentative, drawing);
        }
        decision = admit(session, admission, List.of(), !tentative, drawing);
      }
      return decision instanceof AdmissionDecision.Insufficient
          ? new AdmissionDecision.Unavailable("Stock is being moved between buckets")
          : decision;
    } catch (DataAccessException | GateClosedException e) {
      return new AdmissionDecision.Unavailable(e.getMessage());
    }
  }

  /**
   * Decides queued reservations of a pre-queue's draw, in order, as {@link #reserve(Admission,
   * boolean)} with {@code drawing} decides each: on one partition, with no SKU in buckets, many in
   * one call of the draw's script (reserve.lua's code in a loop); else one at a time. Stops at the
   * first the gate cannot decide now (closed, its clock not yet at the opening): the answers are a
   * prefix of the admissions, that one's answer last.
   */
  @Override
  public List<AdmissionDecision> draw(List<Admission> admissions) {
    List<AdmissionDecision> decisions = new ArrayList<>(admissions.size());
    boolean together =
        layout.partitions().size() == 1
            && admissions.stream().noneMatch(admission -> placements.inBuckets(admission.lines()));
    if (!together) {
      for (Admission admission : admissions) {
        AdmissionDecision decision = reserve(admission, true);
        decisions.add(decision);
        if (decision instanceof AdmissionDecision.Unavailable
            || decision instanceof AdmissionDecision.Queued) {
          break;
        }
      }
      return decisions;
    }
    try {
      GateSession session = scripts.session();
      Partition only = layout.partition(0);
      List<String> keys = new ArrayList<>();
      List<Object> args = new ArrayList<>();
      args.add(admissions.size());
      for (Admission admission : admissions) {
        List<String> ownKeys = new ArrayList<>();
        List<Object> ownArgs = new ArrayList<>();
        reserveArguments(admission, only, admission.lines(), List.of(), 0, 3, ownKeys, ownArgs);
        args.add(ownKeys.size());
        args.add(ownArgs.size());
        args.addAll(ownArgs);
        keys.addAll(ownKeys);
      }
      List<Object> replies = scripts.run(session, only, DRAW, keys, args.toArray());
      for (int i = 0; i < admissions.size(); i++) {
        @SuppressWarnings("unchecked")
        List<Object> reply = (List<Object>) replies.get(i + 1);
        List<ReservationLine> lines = admissions.get(i).lines();
        AdmissionDecision decision = ReserveReply.decision(reply, lines, lines, session.epoch());
        decisions.add(decision);
        if (decision instanceof AdmissionDecision.Queued) {
          break;
        }
      }
      return decisions;
    } catch (DataAccessException | GateClosedException e) {
      return List.of(new AdmissionDecision.Unavailable(e.getMessage()));
    }
  }

  /** The decision to answer: a tentative refusal for want of stock is made again as a final one. */
  private AdmissionDecision finalDecision(
      GateSession session,
      Admission admission,
      AdmissionDecision decision,
      boolean tentative,
      boolean drawing) {
    return tentative && decision instanceof AdmissionDecision.Insufficient
        ? admit(session, admission, List.of(), true, drawing)
        : decision;
  }

  /**
   * @param buckets the token buckets to take from (in the first part's call)
   * @param decided whether a refusal for want of stock is the final decision (recorded)
   */
  private AdmissionDecision admit(
      GateSession session,
      Admission admission,
      List<TokenBucket> buckets,
      boolean decided,
      boolean drawing) {
    int flags = (decided ? 1 : 0) + (drawing ? 2 : 0);
    if (layout.partitions().size() == 1) {
      Partition only = layout.partition(0);
      List<Object> reply =
          reservePart(session, admission, only, admission.lines(), buckets, 0, flags);
      return ReserveReply.decision(reply, admission.lines(), admission.lines(), session.epoch());
    }
    Map<Partition, List<ReservationLine>> parts = new TreeMap<>(BucketPlacements.BY_INDEX);
    for (ReservationLine line : admission.lines()) {
      parts
          .computeIfAbsent(
              placements.partitionOf(line.skuId(), admission.userId()),
              partition -> new ArrayList<>())
          .add(line);
    }
    if (parts.size() == 1) {
      Map.Entry<Partition, List<ReservationLine>> only = parts.entrySet().iterator().next();
      List<Object> reply =
          reservePart(session, admission, only.getKey(), only.getValue(), buckets, 0, flags);
      return ReserveReply.decision(reply, admission.lines(), only.getValue(), session.epoch());
    }
    return reserveParts(session, admission, parts, buckets, flags);
  }

  private AdmissionDecision reserveParts(
      GateSession session,
      Admission admission,
      Map<Partition, List<ReservationLine>> parts,
      List<TokenBucket> buckets,
      int flags) {
    List<Object> first = null;
    long sequence = 0;
    boolean recording = false;
    // The parts this call admitted, or became one of the recorders of: what it must leave on
    // refusal.
    List<Partition> joined = new ArrayList<>();
    for (Map.Entry<Partition, List<ReservationLine>> part : parts.entrySet()) {
      List<Object> reply;
      try {
        // The first part takes the tokens (a short bucket refuses it before anything is taken).
        reply =
            reservePart(
                session,
                admission,
                part.getKey(),
                part.getValue(),
                first == null ? buckets : List.of(),
                sequence,
                flags);
      } catch (DataAccessException | GateClosedException e) {
        leave(admission.reservationId(), new AdmissionId(sequence, session.epoch()), joined);
        throw e;
      }
      int code = code(reply);
      if (code != ADMITTED && code != DUPLICATE) {
        leave(admission.reservationId(), new AdmissionId(sequence, session.epoch()), joined);
        return ReserveReply.decision(reply, admission.lines(), part.getValue(), session.epoch());
      }
      if (first == null) {
        first = reply;
        sequence = number(reply, 1);
        if (code == DUPLICATE && !"RESERVED".equals(String.valueOf(reply.get(4)))) {
          // Ended: every part was admitted and recorded, and ended with the record.
          return ReserveReply.decision(reply, admission.lines(), part.getValue(), session.epoch());
        }
      }
      if (code == ADMITTED || number(reply, 5) == 1) {
        joined.add(part.getKey());
        recording = true;
      }
    }
    if (code(first) == ADMITTED) {
      return new AdmissionDecision.Admitted(
          sequence, instant(first, 2), instant(first, 3), session.epoch());
    }
    return new AdmissionDecision.Duplicate(
        sequence,
        instant(first, 2),
        instant(first, 3),
        "RESERVED",
        recording,
        ReserveReply.admittedIn(first, session.epoch()));
  }

  private List<Object> reservePart(
      GateSession session,
      Admission admission,
      Partition partition,
      List<ReservationLine> lines,
      List<TokenBucket> buckets,
      long sequence,
      int flags) {
    List<String> keys = new ArrayList<>();
    List<Object> args = new ArrayList<>();
    reserveArguments(admission, partition, lines, buckets, sequence, flags, keys, args);
    return scripts.run(session, partition, RESERVE, keys, args.toArray());
  }

  /** reserve.lua's keys and arguments (after the marker and the epoch) for one part. */
  private void reserveArguments(
      Admission admission,
      Partition partition,
      List<ReservationLine> lines,
      List<TokenBucket> buckets,
      long sequence,
      int flags,
      List<String> keys,
      List<Object> args) {
    args.add(buckets.size());
    for (TokenBucket bucket : buckets) {
      keys.add(bucket.key());
      args.add(bucket.capacity());
      args.add(bucket.refillPerSecond());
    }
    keys.add(partition.intent(admission.reservationId()));
    keys.add(partition.sequence());
    keys.add(partition.pending());
    keys.add(partition.decisions());
    keys.add(partition.dropped());
    args.add(admission.userId());
    args.add(admission.fingerprint());
    args.add(admission.now().toEpochMilli());
    args.add(admission.hold().toMillis());
    args.add(sequence);
    args.add(partition.index());
    args.add(decisionBacklog);
    args.add(flags);
    for (ReservationLine line : lines) {
      keys.add(partition.counters(line.skuId()));
      keys.add(partition.holders(line.skuId()));
      args.add(line.skuId());
      args.add(line.quantity());
    }
  }

  /**
   * Withdraws the parts a refused or failed admission took (all of them admitted, or pending, in
   * the session's epoch). Best effort: a part left behind (Redis failed meanwhile) stays pending,
   * and the recovery sweeper gives it back.
   */
  private void leave(String reservationId, AdmissionId admission, List<Partition> joined) {
    for (Partition partition : joined) {
      try {
        transitions.withdrawPart(partition, reservationId, admission);
      } catch (DataAccessException | GateClosedException e) {
        log.warn(
            "Part of reservation {} in partition {} left for the recovery sweeper",
            reservationId,
            partition.tag(),
            e);
      }
    }
  }
}
