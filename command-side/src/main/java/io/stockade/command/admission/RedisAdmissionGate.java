package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.GateLayout.Partition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * The gate as Lua scripts in Redis ({@code src/main/resources/lua}); each operation is one atomic
 * script call. Scripts run by SHA and are sent again when Redis has forgotten them (restart,
 * failover, {@code SCRIPT FLUSH}).
 */
@Component
class RedisAdmissionGate implements AdmissionGate {

  private static final RedisScript<List<Object>> RESERVE = script("reserve");
  private static final RedisScript<List<Object>> REGISTER = script("register");
  private static final RedisScript<List<Object>> TRANSITION = script("transition");
  private static final RedisScript<List<Object>> EXTEND = script("extend");
  private static final RedisScript<List<Object>> REPLENISH = script("replenish");
  private static final RedisScript<List<Object>> WITHDRAW = script("withdraw");
  private static final RedisScript<List<Object>> TRANSFER = script("transfer");
  private static final RedisScript<List<Object>> RECORDED = script("recorded");
  private static final RedisScript<List<Object>> PENDING = script("pending");

  private static final Comparator<Partition> BY_INDEX = Comparator.comparingInt(Partition::index);

  /** How often a reservation short in its user's bucket gathers units from the others. */
  private static final int CONSOLIDATIONS = 3;

  /** SKUs whose buckets are remembered; beyond, the memory starts afresh. */
  private static final int PLACEMENTS_REMEMBERED = 100_000;

  private static final long NO_LIMIT = -1;

  /** Replies of reserve.lua that take part in an admission. */
  private static final int ADMITTED = 1;

  private static final int DUPLICATE = 2;

  /** Replies of transition.lua (and, for UNKNOWN and STALE, of withdraw.lua). */
  private static final int DONE = 1;

  private static final int ALREADY = 2;
  private static final int NOT_ACTIVE = 3;
  private static final int UNKNOWN = 4;
  private static final int STALE = 5;

  /** Reply of transition.lua, withdraw.lua and recorded.lua: the intent is another admission's. */
  private static final int OTHER_ADMISSION = 6;

  private static final Logger log = LoggerFactory.getLogger(RedisAdmissionGate.class);

  /** Replies of transfer.lua: EXPECT's and OUT's success, and IN's for a move not listed. */
  private static final int MOVE_EXPECTED = 1;

  private static final int MOVE_TAKEN = 1;
  private static final int MOVE_GONE = 3;

  /** Moves settled per partition in one settlement; the next one goes on. */
  private static final int MOVES_PER_SETTLEMENT = 200;

  /** Reply of every script when Redis holds another epoch than the session's, or none. */
  private static final int CLOSED = -1;

  private final GateSessions sessions;
  private final GateLayout layout;
  private final String retentionMillis;
  private final long decisionBacklog;
  private final Map<String, List<Partition>> placements = new ConcurrentHashMap<>();
  private volatile long placementsEpoch;

  RedisAdmissionGate(GateSessions sessions, GateLayout layout, GateProperties properties) {
    this.sessions = sessions;
    this.layout = layout;
    this.retentionMillis = String.valueOf(properties.intentRetention().toMillis());
    this.decisionBacklog = properties.decisionBacklog();
  }

  /**
   * Reads a script once. A script built on a {@code Resource} would check the file for changes
   * under a lock at every call to learn its SHA: a third of the gate's throughput.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static RedisScript<List<Object>> script(String name) {
    try (InputStream in = new ClassPathResource("lua/" + name + ".lua").getInputStream()) {
      String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return (RedisScript) RedisScript.of(source, List.class);
    } catch (IOException e) {
      throw new UncheckedIOException("Gate script " + name + ".lua is missing", e);
    }
  }

  /**
   * Seeds every bucket's counters, each with its share of the stock (the first ones one unit more
   * when it does not divide evenly). Seeding is idempotent per bucket, so a repeat completes a
   * registration that stopped halfway.
   */
  @Override
  public void register(String skuId, long initialStock, Integer perUserLimit, int buckets) {
    long limit = perUserLimit == null ? NO_LIMIT : perUserLimit;
    List<Partition> placement;
    try {
      GateSession session = session();
      Partition home = layout.of(skuId);
      Object recorded = read(redis -> redis.opsForHash().get(home.counters(skuId), "buckets"));
      // A registration seen before keeps the placement it got, wherever the masters are now.
      placement =
          recorded != null
              ? layout.buckets(recorded.toString())
              : buckets == 1
                  ? List.of(home)
                  : layout.buckets(skuId, buckets, GateRebuild.servers(session.redis()));
      // The home bucket last: its counters say where the others are, so it says so once they are.
      for (int bucket = placement.size() - 1; bucket >= 0; bucket--) {
        Partition partition = placement.get(bucket);
        run(
            session,
            partition,
            REGISTER,
            List.of(partition.counters(skuId)),
            share(initialStock, bucket, placement.size()),
            limit,
            GateLayout.recorded(placement));
      }
    } catch (DataAccessException | GateClosedException e) {
      throw new GateUnavailableException("Gate unreachable while registering " + skuId, e);
    }
    remember(skuId, placement);
  }

  /** Bucket {@code bucket}'s share of {@code units} split over {@code count} buckets. */
  static long share(long units, int bucket, int count) {
    return units / count + (bucket < units % count ? 1 : 0);
  }

  /**
   * The partitions of a SKU's buckets: read once from its home counters (which record where they
   * lie; that never changes until the gate is rebuilt, which opens a new epoch), then remembered
   * for the epoch. An unknown SKU is not remembered: it may be registered later.
   */
  private List<Partition> placement(String skuId) {
    long epoch = session().epoch();
    if (placementsEpoch != epoch) {
      placements.clear();
      placementsEpoch = epoch;
    }
    List<Partition> placement = placements.get(skuId);
    if (placement != null) {
      return placement;
    }
    Partition home = layout.of(skuId);
    if (layout.partitions().size() == 1) {
      return List.of(home);
    }
    Object buckets = read(redis -> redis.opsForHash().get(home.counters(skuId), "buckets"));
    if (buckets == null) {
      return List.of(home);
    }
    placement = layout.buckets(buckets.toString());
    remember(skuId, placement);
    return placement;
  }

  private void remember(String skuId, List<Partition> placement) {
    if (placements.size() >= PLACEMENTS_REMEMBERED) {
      placements.clear();
    }
    placements.put(skuId, placement);
  }

  /** The partition a line of the user's is admitted in: its SKU's, or the user's bucket's. */
  private Partition partitionOf(String skuId, String userId) {
    List<Partition> placement = placement(skuId);
    return placement.size() == 1
        ? placement.get(0)
        : placement.get(GateLayout.bucketOf(userId, placement.size()));
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
  public AdmissionDecision reserve(Admission admission) {
    try {
      GateSession session = session();
      // Where units may be gathered from other buckets, a refusal for want of stock is tentative
      // until the gathering is done: not recorded as a decision, and asked again as a final one.
      boolean tentative = inBuckets(admission);
      AdmissionDecision decision = admit(session, admission, !tentative);
      for (int round = 0; round < CONSOLIDATIONS; round++) {
        if (!(decision instanceof AdmissionDecision.Insufficient insufficient)
            || placement(insufficient.skuId()).size() == 1) {
          return finalDecision(session, admission, decision, tentative);
        }
        long wanted = admission.lines().get(insufficient.lineIndex()).quantity();
        if (!consolidate(session, insufficient.skuId(), admission.userId(), wanted)) {
          return finalDecision(session, admission, decision, tentative);
        }
        decision = admit(session, admission, !tentative);
      }
      return decision instanceof AdmissionDecision.Insufficient
          ? new AdmissionDecision.Unavailable("Stock is being moved between buckets")
          : decision;
    } catch (DataAccessException | GateClosedException e) {
      return new AdmissionDecision.Unavailable(e.getMessage());
    }
  }

  private boolean inBuckets(Admission admission) {
    if (layout.partitions().size() == 1) {
      return false;
    }
    for (ReservationLine line : admission.lines()) {
      if (placement(line.skuId()).size() > 1) {
        return true;
      }
    }
    return false;
  }

  /** The decision to answer: a tentative refusal for want of stock is made again as a final one. */
  private AdmissionDecision finalDecision(
      GateSession session, Admission admission, AdmissionDecision decision, boolean tentative) {
    return tentative && decision instanceof AdmissionDecision.Insufficient
        ? admit(session, admission, true)
        : decision;
  }

  /**
   * @param decided whether a refusal for want of stock is the final decision (recorded)
   */
  private AdmissionDecision admit(GateSession session, Admission admission, boolean decided) {
    if (layout.partitions().size() == 1) {
      Partition only = layout.partition(0);
      List<Object> reply = reservePart(session, admission, only, admission.lines(), 0, decided);
      return decision(reply, admission.lines(), admission.lines(), session.epoch());
    }
    Map<Partition, List<ReservationLine>> parts = new TreeMap<>(BY_INDEX);
    for (ReservationLine line : admission.lines()) {
      parts
          .computeIfAbsent(
              partitionOf(line.skuId(), admission.userId()), partition -> new ArrayList<>())
          .add(line);
    }
    if (parts.size() == 1) {
      Map.Entry<Partition, List<ReservationLine>> only = parts.entrySet().iterator().next();
      List<Object> reply =
          reservePart(session, admission, only.getKey(), only.getValue(), 0, decided);
      return decision(reply, admission.lines(), only.getValue(), session.epoch());
    }
    return reserveParts(session, admission, parts, decided);
  }

  /**
   * Moves available units of a SKU split into buckets from its other buckets into the user's until
   * that one holds {@code wanted} (transfer.lua: expected by the target, out of the source, into
   * the target once, done, forgotten; a move left halfway is finished by the recovery sweeper).
   *
   * @return false when all the buckets together hold fewer than {@code wanted} units: sold out;
   *     true when the user's bucket may now serve the request
   */
  private boolean consolidate(GateSession session, String skuId, String userId, long wanted) {
    List<Partition> placement = placement(skuId);
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
          read(
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
        run(
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
        run(
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
    run(session, target, TRANSFER, List.of(target.transfersIn()), "CANCEL", id);
    return null;
  }

  /**
   * The oldest moves out of {@code source} begun at least {@code bound} ago by the clock of
   * source's Redis (which also timed their start) and not known to be done.
   */
  List<String> movesLeft(GateSession session, Partition source, Duration bound) {
    List<Object> reply =
        run(
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
            run(
                session,
                target,
                TRANSFER,
                List.of(target.counters(skuId), target.transfersIn()),
                "IN",
                id,
                skuId,
                move[3]));
    if (in == UNKNOWN) {
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
                run(
                    session,
                    source,
                    TRANSFER,
                    List.of(source.counters(skuId), source.transfers(), source.transferIds()),
                    in == MOVE_GONE ? "BACK" : "DONE",
                    member))
            == DONE;
    if (in != MOVE_GONE) {
      run(session, target, TRANSFER, List.of(target.transfersIn()), "FORGET", id);
    }
    return done;
  }

  @Override
  public int settleTransfers(Duration bound) {
    int settled = 0;
    GateSession session = session();
    for (Partition source : layout.partitions()) {
      for (String member : movesLeft(session, source, bound)) {
        if (settle(session, source, member)) {
          settled++;
        }
      }
    }
    return settled;
  }

  private long number(String key, String field) {
    Object value = read(redis -> redis.opsForHash().get(key, field));
    return value == null ? 0 : Long.parseLong(value.toString());
  }

  private AdmissionDecision reserveParts(
      GateSession session,
      Admission admission,
      Map<Partition, List<ReservationLine>> parts,
      boolean decided) {
    List<Object> first = null;
    long sequence = 0;
    boolean recording = false;
    // The parts this call admitted, or became one of the recorders of: what it must leave on
    // refusal.
    List<Partition> joined = new ArrayList<>();
    for (Map.Entry<Partition, List<ReservationLine>> part : parts.entrySet()) {
      List<Object> reply;
      try {
        reply = reservePart(session, admission, part.getKey(), part.getValue(), sequence, decided);
      } catch (DataAccessException | GateClosedException e) {
        leave(admission.reservationId(), new AdmissionId(sequence, session.epoch()), joined);
        throw e;
      }
      int code = code(reply);
      if (code != ADMITTED && code != DUPLICATE) {
        leave(admission.reservationId(), new AdmissionId(sequence, session.epoch()), joined);
        return decision(reply, admission.lines(), part.getValue(), session.epoch());
      }
      if (first == null) {
        first = reply;
        sequence = number(reply, 1);
        if (code == DUPLICATE && !"RESERVED".equals(String.valueOf(reply.get(4)))) {
          // Ended: every part was admitted and recorded, and ended with the record.
          return decision(reply, admission.lines(), part.getValue(), session.epoch());
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
        admittedIn(first, session.epoch()));
  }

  private List<Object> reservePart(
      GateSession session,
      Admission admission,
      Partition partition,
      List<ReservationLine> lines,
      long sequence,
      boolean decided) {
    List<String> keys = new ArrayList<>();
    keys.add(partition.intent(admission.reservationId()));
    keys.add(partition.sequence());
    keys.add(partition.pending());
    keys.add(partition.decisions());
    List<Object> args = new ArrayList<>();
    args.add(admission.userId());
    args.add(admission.fingerprint());
    args.add(admission.now().toEpochMilli());
    args.add(admission.hold().toMillis());
    args.add(sequence);
    args.add(partition.index());
    args.add(decisionBacklog);
    args.add(decided ? 1 : 0);
    for (ReservationLine line : lines) {
      keys.add(partition.counters(line.skuId()));
      keys.add(partition.holders(line.skuId()));
      args.add(line.skuId());
      args.add(line.quantity());
    }
    return run(session, partition, RESERVE, keys, args.toArray());
  }

  /**
   * Withdraws the parts a refused or failed admission took (all of them admitted, or pending, in
   * the session's epoch). Best effort: a part left behind (Redis failed meanwhile) stays pending,
   * and the recovery sweeper gives it back.
   */
  private void leave(String reservationId, AdmissionId admission, List<Partition> joined) {
    for (Partition partition : joined) {
      try {
        withdrawPart(partition, reservationId, admission);
      } catch (DataAccessException | GateClosedException e) {
        log.warn(
            "Part of reservation {} in partition {} left for the recovery sweeper",
            reservationId,
            partition.tag(),
            e);
      }
    }
  }

  /**
   * The partitions that may hold a part of a reservation of these lines, in partition order: each
   * line's SKU's, and every bucket's of a SKU split into buckets.
   */
  private Set<Partition> locations(List<ReservationLine> lines) {
    Set<Partition> locations = new TreeSet<>(BY_INDEX);
    for (ReservationLine line : lines) {
      locations.addAll(placement(line.skuId()));
    }
    return locations;
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
      GateSession session = session();
      for (Partition partition : locations(lines)) {
        int code =
            code(
                run(
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
      locations = locations(lines);
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
      locations = locations(lines);
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

  private Withdrawal withdrawPart(
      Partition partition, String reservationId, AdmissionId admission) {
    int code =
        onIntent(
            partition,
            reservationId,
            WITHDRAW,
            List.of(partition.pending(), partition.decisions()),
            lines ->
                new Object[] {admission.sequence(), admission.gateEpoch(), lines, decisionBacklog});
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
    GateSession session = session();
    for (int attempt = 0; attempt < 3; attempt++) {
      Object lines = read(redis -> redis.opsForHash().get(intent, "lines"));
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
      int code = code(run(session, partition, script, keys, args.apply(lines)));
      if (code != STALE) {
        return code;
      }
    }
    throw new IllegalStateException("Intent of " + reservationId + " keeps changing");
  }

  @Override
  public void fenced(long gateEpoch) {
    GateSession session = sessions.current();
    if (session != null && session.epoch() == gateEpoch) {
      sessions.lost(session);
    }
  }

  @Override
  public void recorded(String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    Set<Partition> locations;
    try {
      locations = locations(lines);
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
      run(
          session(),
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
    GateSession session = session();
    List<TypedTuple<Pending>> found = new ArrayList<>();
    for (Partition partition : layout.partitions()) {
      List<Object> reply =
          run(session, partition, PENDING, List.of(partition.pending()), bound.toMillis(), limit);
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
        read(
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

  @Override
  public Replenishment replenish(String skuId, String replenishmentId, long quantity) {
    Partition partition = layout.of(skuId);
    try {
      List<Object> reply =
          run(
              session(),
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

  /** A plain command in the current session; a failed connection ends the session. */
  private <T> T read(Function<StringRedisTemplate, T> command) {
    GateSession session = session();
    try {
      return command.apply(session.redis());
    } catch (DataAccessException e) {
      sessions.lost(session);
      throw e;
    } catch (IllegalStateException e) {
      throw closedMeanwhile(session, e);
    }
  }

  /**
   * A session ends by closing its connection, which may happen while a request that took it is
   * still at work: that request's Redis call then fails with the stopped connection factory's
   * IllegalStateException. The gate is closed, as if Redis had not answered. Any other
   * IllegalStateException, in a session still current, is a bug and is thrown as it is.
   */
  private RuntimeException closedMeanwhile(GateSession session, IllegalStateException e) {
    if (sessions.current() != session) {
      return new GateClosedException(
          "The session of gate epoch " + session.epoch() + " ended during the call");
    }
    return e;
  }

  private GateSession session() {
    GateSession session = sessions.current();
    if (session == null) {
      throw new GateClosedException("The gate is closed while it opens (checks or rebuilds Redis)");
    }
    return session;
  }

  /**
   * Runs a script in the session's epoch. A CLOSED reply (Redis holds another epoch, or none) and a
   * failed connection end the session: the gate checks Redis again before it opens.
   *
   * <p>Its own error replies ({@code ERR_...}) and Lua failures are bugs in the caller or corrupted
   * keys, never outcomes: they are thrown as {@link GateScriptException} so that they cannot be
   * mistaken for "Redis cannot answer" (any other {@link DataAccessException}: refused connection,
   * timeout, LOADING, READONLY...).
   */
  private List<Object> run(
      GateSession session,
      Partition partition,
      RedisScript<List<Object>> script,
      List<String> keys,
      Object... args) {
    List<String> allKeys = new ArrayList<>(keys.size() + 1);
    allKeys.add(partition.marker());
    allKeys.addAll(keys);
    String[] values = new String[args.length + 1];
    values[0] = String.valueOf(session.epoch());
    for (int i = 0; i < args.length; i++) {
      values[i + 1] = String.valueOf(args[i]);
    }
    List<Object> reply;
    try {
      reply = session.redis().execute(script, allKeys, (Object[]) values);
    } catch (DataAccessException e) {
      String message = String.valueOf(e.getMostSpecificCause().getMessage());
      if (message.startsWith("ERR_") || message.contains("user_script")) {
        throw new GateScriptException(message, e);
      }
      sessions.lost(session);
      throw e;
    } catch (IllegalStateException e) {
      throw closedMeanwhile(session, e);
    }
    if (code(reply) == CLOSED) {
      sessions.lost(session);
      throw new GateClosedException("Redis does not hold the gate of epoch " + session.epoch());
    }
    return reply;
  }

  /** The gate is closed: Redis lost its data, is being rebuilt, or was never opened. */
  private static final class GateClosedException extends RuntimeException {

    GateClosedException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The decision a reply of reserve.lua stands for. A refusal names a line of {@code part} (the
   * lines the script was given); the decision names it by its index in {@code lines}, the whole
   * reservation's.
   */
  private static AdmissionDecision decision(
      List<Object> reply, List<ReservationLine> lines, List<ReservationLine> part, long epoch) {
    int code = code(reply);
    boolean refused = code >= 4 && code <= 6;
    String skuId = refused ? part.get(number(reply, 1).intValue()).skuId() : null;
    int index = refused ? indexOf(lines, skuId) : -1;
    switch (code) {
      case 1:
        return new AdmissionDecision.Admitted(
            number(reply, 1), instant(reply, 2), instant(reply, 3), epoch);
      case 2:
        return new AdmissionDecision.Duplicate(
            number(reply, 1),
            instant(reply, 2),
            instant(reply, 3),
            String.valueOf(reply.get(4)),
            number(reply, 5) == 1,
            admittedIn(reply, epoch));
      case 3:
        return new AdmissionDecision.Reused();
      case 4:
        return new AdmissionDecision.Insufficient(skuId, index);
      case 5:
        return new AdmissionDecision.LimitExceeded(
            skuId, index, number(reply, 2), number(reply, 3));
      case 6:
        return new AdmissionDecision.UnknownSku(skuId, index);
      default:
        throw new IllegalStateException("Unknown reply of reserve.lua " + reply);
    }
  }

  /**
   * The epoch of the admission a DUPLICATE reply names: the intent's, or {@code epoch} (the
   * session's) for an intent written before intents kept it.
   */
  private static long admittedIn(List<Object> duplicate, long epoch) {
    long recorded = duplicate.size() > 6 ? number(duplicate, 6) : AdmissionId.UNKNOWN_EPOCH;
    return recorded == AdmissionId.UNKNOWN_EPOCH ? epoch : recorded;
  }

  private static int indexOf(List<ReservationLine> lines, String skuId) {
    for (int index = 0; index < lines.size(); index++) {
      if (lines.get(index).skuId().equals(skuId)) {
        return index;
      }
    }
    return -1;
  }

  private static int code(List<Object> reply) {
    return number(reply, 0).intValue();
  }

  private static Long number(List<Object> reply, int index) {
    return ((Number) reply.get(index)).longValue();
  }

  private static Instant instant(List<Object> reply, int index) {
    return Instant.ofEpochMilli(number(reply, index));
  }
}
