package io.stockade.command.admission.redis;

import io.stockade.command.admission.GateClosedException;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * How the gate's operations reach Redis: its Lua scripts ({@code src/main/lua}, assembled into
 * {@code lua/} on the classpath) read once, each run in the session's epoch behind its partition's
 * marker, plain reads in the same session, and the replies read. Every way a call can find the gate
 * closed (no session, a CLOSED reply, a failed connection, a session ended meanwhile) is told apart
 * here, once, so that no operation can mistake one for a bug or a bug for an outage.
 *
 * <p>Scripts run by SHA and are sent again when Redis has forgotten them (restart, failover, {@code
 * SCRIPT FLUSH}).
 */
public final class GateScripts {

  /** Reply of every script when Redis holds another epoch than the session's, or none. */
  private static final int CLOSED = -1;

  private final GateSessions sessions;

  GateScripts(GateSessions sessions) {
    this.sessions = sessions;
  }

  /**
   * Reads a script once. A script built on a {@code Resource} would check the file for changes
   * under a lock at every call to learn its SHA: a third of the gate's throughput.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static RedisScript<List<Object>> load(String name) {
    return (RedisScript) RedisScript.of(source(name), List.class);
  }

  private static String source(String name) {
    try (InputStream in = new ClassPathResource("lua/" + name + ".lua").getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Gate script " + name + ".lua is missing", e);
    }
  }

  /** The open session; the gate is closed while there is none. */
  GateSession session() {
    GateSession session = sessions.current();
    if (session == null) {
      throw new GateClosedException("The gate is closed while it opens (checks or rebuilds Redis)");
    }
    return session;
  }

  /** Ends the session of {@code gateEpoch} if it is the open one: the gate checks Redis again. */
  void endSession(long gateEpoch) {
    GateSession session = sessions.current();
    if (session != null && session.epoch() == gateEpoch) {
      sessions.lost(session);
    }
  }

  /** A plain command in the current session; a failed connection ends the session. */
  <T> T read(Function<StringRedisTemplate, T> command) {
    GateSession session = session();
    try {
      return command.apply(session.redis());
    } catch (DataAccessException e) {
      sessions.lost(session);
      throw e;
    } catch (RuntimeException e) {
      throw closedMeanwhile(session, e);
    }
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
  List<Object> run(
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
    } catch (RuntimeException e) {
      throw closedMeanwhile(session, e);
    }
    if (code(reply) == CLOSED) {
      sessions.lost(session);
      throw new GateClosedException("Redis does not hold the gate of epoch " + session.epoch());
    }
    return reply;
  }

  /**
   * A session ends by closing its connection, which may happen while a request that took it is
   * still at work: that request's Redis call then fails with whatever the connection factory throws
   * while it is torn down (an IllegalStateException once it is stopped; a NullPointerException from
   * Spring Data Redis's shared connection when the teardown overtakes the call, seen under load).
   * The gate is closed, as if Redis had not answered. Any other failure, in a session still
   * current, is a bug and is thrown as it is.
   */
  private RuntimeException closedMeanwhile(GateSession session, RuntimeException e) {
    if (sessions.current() != session) {
      return new GateClosedException(
          "The session of gate epoch " + session.epoch() + " ended during the call");
    }
    return e;
  }

  /** A reply's code: its first element. */
  static int code(List<Object> reply) {
    return number(reply, 0).intValue();
  }

  static Long number(List<Object> reply, int index) {
    return ((Number) reply.get(index)).longValue();
  }

  static Instant instant(List<Object> reply, int index) {
    return Instant.ofEpochMilli(number(reply, index));
  }
}
