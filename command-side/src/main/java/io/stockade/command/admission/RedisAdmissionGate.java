package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * The gate as Lua scripts in Redis ({@code src/main/resources/lua}); each operation is one atomic
 * script call. Scripts run by SHA and are sent again when Redis has forgotten them.
 */
@Component
class RedisAdmissionGate implements AdmissionGate {

  @SuppressWarnings("rawtypes")
  private static final RedisScript<List> RESERVE =
      RedisScript.of(new ClassPathResource("lua/reserve.lua"), List.class);

  @SuppressWarnings("rawtypes")
  private static final RedisScript<List> REGISTER =
      RedisScript.of(new ClassPathResource("lua/register.lua"), List.class);

  private static final long NO_LIMIT = -1;

  private final StringRedisTemplate redis;

  RedisAdmissionGate(StringRedisTemplate redis) {
    this.redis = redis;
  }

  @Override
  public void register(String skuId, long initialStock, Integer perUserLimit) {
    long limit = perUserLimit == null ? NO_LIMIT : perUserLimit;
    try {
      redis.execute(
          REGISTER,
          List.of(GateKeys.counters(skuId)),
          String.valueOf(initialStock),
          String.valueOf(limit));
    } catch (RedisSystemException e) {
      throw scriptFailure(e);
    } catch (DataAccessException e) {
      throw new GateUnavailableException("Gate unreachable while registering " + skuId, e);
    }
  }

  @Override
  public AdmissionDecision reserve(Admission admission) {
    List<String> keys = new ArrayList<>();
    keys.add(GateKeys.intent(admission.reservationId()));
    keys.add(GateKeys.SEQUENCE);
    List<String> args = new ArrayList<>();
    args.add(admission.userId());
    args.add(admission.fingerprint());
    args.add(String.valueOf(admission.now().toEpochMilli()));
    args.add(String.valueOf(admission.hold().toMillis()));
    for (ReservationLine line : admission.lines()) {
      keys.add(GateKeys.counters(line.skuId()));
      keys.add(GateKeys.holders(line.skuId()));
      args.add(line.skuId());
      args.add(String.valueOf(line.quantity()));
    }
    List<?> reply;
    try {
      reply = redis.execute(RESERVE, keys, args.toArray());
    } catch (RedisSystemException e) {
      throw scriptFailure(e);
    } catch (DataAccessException e) {
      return new AdmissionDecision.Unavailable(e.getMessage());
    }
    return decision(reply, admission.lines());
  }

  private static AdmissionDecision decision(List<?> reply, List<ReservationLine> lines) {
    int code = number(reply, 0).intValue();
    int index = reply.size() > 1 ? number(reply, 1).intValue() : -1;
    switch (code) {
      case 1:
        return new AdmissionDecision.Admitted(
            number(reply, 1), instant(reply, 2), instant(reply, 3));
      case 2:
        return new AdmissionDecision.Duplicate(
            number(reply, 1), instant(reply, 2), instant(reply, 3), String.valueOf(reply.get(4)));
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
        throw new IllegalStateException("Unknown reserve.lua reply " + reply);
    }
  }

  private static Long number(List<?> reply, int index) {
    return ((Number) reply.get(index)).longValue();
  }

  private static Instant instant(List<?> reply, int index) {
    return Instant.ofEpochMilli(number(reply, index));
  }

  /**
   * A script's error reply is a bug in the caller or a corrupted key, never an outcome: it must not
   * be mistaken for "Redis is down".
   */
  private static RuntimeException scriptFailure(RedisSystemException e) {
    String message = e.getMostSpecificCause().getMessage();
    if (message != null && (message.contains("ERR_ARGUMENT") || message.contains("ERR_TYPE"))) {
      return new InvalidDataAccessApiUsageException(message, e);
    }
    return new GateUnavailableException("Gate script failed: " + message, e);
  }
}
