package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
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
  private static final RedisScript<List<Object>> REPLENISH = script("replenish");
  private static final RedisScript<List<Object>> WITHDRAW = script("withdraw");

  private static final long NO_LIMIT = -1;

  /** Replies of transition.lua (and, for UNKNOWN and STALE, of withdraw.lua). */
  private static final int DONE = 1;

  private static final int ALREADY = 2;
  private static final int NOT_ACTIVE = 3;
  private static final int UNKNOWN = 4;
  private static final int STALE = 5;

  private static final Logger log = LoggerFactory.getLogger(RedisAdmissionGate.class);

  /** Reply of every script when Redis holds another epoch than the session's, or none. */
  private static final int CLOSED = -1;

  private final GateSessions sessions;
  private final String retentionMillis;

  RedisAdmissionGate(GateSessions sessions, GateProperties properties) {
    this.sessions = sessions;
    this.retentionMillis = String.valueOf(properties.intentRetention().toMillis());
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

  @Override
  public void register(String skuId, long initialStock, Integer perUserLimit) {
    long limit = perUserLimit == null ? NO_LIMIT : perUserLimit;
    try {
      run(session(), REGISTER, List.of(GateKeys.counters(skuId)), initialStock, limit);
    } catch (DataAccessException | GateClosedException e) {
      throw new GateUnavailableException("Gate unreachable while registering " + skuId, e);
    }
  }

  @Override
  public AdmissionDecision reserve(Admission admission) {
    List<String> keys = new ArrayList<>();
    keys.add(GateKeys.intent(admission.reservationId()));
    keys.add(GateKeys.SEQUENCE);
    keys.add(GateKeys.PENDING);
    List<Object> args = new ArrayList<>();
    args.add(admission.userId());
    args.add(admission.fingerprint());
    args.add(admission.now().toEpochMilli());
    args.add(admission.hold().toMillis());
    for (ReservationLine line : admission.lines()) {
      keys.add(GateKeys.counters(line.skuId()));
      keys.add(GateKeys.holders(line.skuId()));
      args.add(line.skuId());
      args.add(line.quantity());
    }
    try {
      GateSession session = session();
      return decision(
          run(session, RESERVE, keys, args.toArray()), admission.lines(), session.epoch());
    } catch (DataAccessException | GateClosedException e) {
      return new AdmissionDecision.Unavailable(e.getMessage());
    }
  }

  @Override
  public Transition confirm(String reservationId) {
    return transition(reservationId, "CONFIRMED", null);
  }

  @Override
  public Transition release(String reservationId, String reason) {
    return transition(reservationId, "RELEASED", reason);
  }

  private Transition transition(String reservationId, String target, String reason) {
    try {
      int code =
          onIntent(
              reservationId,
              TRANSITION,
              List.of(),
              lines ->
                  reason == null
                      ? new Object[] {target, retentionMillis, lines}
                      : new Object[] {target, retentionMillis, lines, reason});
      switch (code) {
        case DONE:
          return Transition.DONE;
        case ALREADY:
          return Transition.ALREADY_DONE;
        case NOT_ACTIVE:
          return Transition.NOT_ACTIVE;
        case UNKNOWN:
          return Transition.UNKNOWN;
        default:
          throw new IllegalStateException("Unknown reply of the gate for " + reservationId);
      }
    } catch (DataAccessException | GateClosedException e) {
      return Transition.UNAVAILABLE;
    }
  }

  @Override
  public Withdrawal withdraw(String reservationId, long sequence) {
    try {
      int code =
          onIntent(
              reservationId,
              WITHDRAW,
              List.of(GateKeys.PENDING),
              lines -> new Object[] {sequence, lines});
      switch (code) {
        case 1:
          return Withdrawal.WITHDRAWN;
        case 2:
          return Withdrawal.OTHERS_RECORDING;
        case 3:
          return Withdrawal.NOT_WITHDRAWN;
        case UNKNOWN:
          return Withdrawal.UNKNOWN;
        default:
          throw new IllegalStateException("Unknown reply of withdraw.lua for " + reservationId);
      }
    } catch (DataAccessException | GateClosedException e) {
      return Withdrawal.UNAVAILABLE;
    }
  }

  /**
   * Runs a script over a reservation's intent: reads the intent's lines, then runs the script with
   * the intent's key, {@code otherKeys}, and the counters and holders of each line, and with the
   * arguments {@code args} makes of the lines as read. The script checks that the lines have not
   * changed in between (they can only if the intent expired and the id was reused) and answers
   * STALE if they have; the read is then repeated.
   *
   * @return the script's reply code, never STALE; UNKNOWN when there is no intent
   */
  private int onIntent(
      String reservationId,
      RedisScript<List<Object>> script,
      List<String> otherKeys,
      Function<Object, Object[]> args) {
    String intent = GateKeys.intent(reservationId);
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
        keys.add(GateKeys.counters(line.skuId()));
        keys.add(GateKeys.holders(line.skuId()));
      }
      int code = code(run(session, script, keys, args.apply(lines)));
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
  public void recorded(String reservationId) {
    try {
      read(redis -> redis.opsForZSet().remove(GateKeys.PENDING, GateKeys.intent(reservationId)));
    } catch (DataAccessException | GateClosedException e) {
      // The sweeper finds it recorded later and clears it then.
      log.debug("Could not clear pending reservation {}", reservationId, e);
    }
  }

  @Override
  public List<String> pendingBefore(Instant cutoff, int limit) {
    Set<String> keys =
        read(
            redis ->
                redis
                    .opsForZSet()
                    .rangeByScore(
                        GateKeys.PENDING,
                        Double.NEGATIVE_INFINITY,
                        cutoff.toEpochMilli(),
                        0,
                        limit));
    return keys == null ? List.of() : keys.stream().map(GateKeys::reservationId).toList();
  }

  @Override
  public Optional<Intent> intent(String reservationId) {
    List<Object> fields =
        read(
            redis ->
                redis
                    .opsForHash()
                    .multiGet(
                        GateKeys.intent(reservationId),
                        List.of("state", "user", "lines", "sequence")));
    if (fields.get(0) == null) {
      return Optional.empty();
    }
    return Optional.of(
        new Intent(
            fields.get(0).toString(),
            String.valueOf(fields.get(1)),
            IntentLines.parse(String.valueOf(fields.get(2))),
            Long.parseLong(String.valueOf(fields.get(3)))));
  }

  @Override
  public Replenishment replenish(String skuId, String replenishmentId, long quantity) {
    try {
      List<Object> reply =
          run(
              session(),
              REPLENISH,
              List.of(GateKeys.counters(skuId), GateKeys.replenishments(skuId)),
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
    }
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
      GateSession session, RedisScript<List<Object>> script, List<String> keys, Object... args) {
    List<String> allKeys = new ArrayList<>(keys.size() + 1);
    allKeys.add(GateKeys.MARKER);
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

  private static AdmissionDecision decision(
      List<Object> reply, List<ReservationLine> lines, long epoch) {
    int code = code(reply);
    int index = reply.size() > 1 ? number(reply, 1).intValue() : -1;
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
            epoch);
      case 3:
        return new AdmissionDecision.Reused();
      case 4:
        return new AdmissionDecision.Insufficient(lines.get(index).skuId(), index);
      case 5:
        return new AdmissionDecision.LimitExceeded(
            lines.get(index).skuId(), index, number(reply, 2), number(reply, 3));
      case 6:
        return new AdmissionDecision.UnknownSku(lines.get(index).skuId(), index);
      default:
        throw new IllegalStateException("Unknown reply of reserve.lua " + reply);
    }
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
