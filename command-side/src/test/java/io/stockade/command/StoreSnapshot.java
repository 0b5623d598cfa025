package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What a request could have changed in Redis and in the database, within a scope: every {@code
 * stockade:} key whose name passes the scope (type, full value, whether it expires), the gate's
 * marker, the members of the pending list that pass it; the event store's size and highest global
 * index, and every row of the event store, the snapshot table, {@code scheduled_tasks} and {@code
 * reservation_expiry} whose identifiers pass it, and the gate's epoch.
 *
 * <p>Left out, and why: keys and rows of other aggregates (other tests and other runs on the same
 * servers write them concurrently; a request can only create events and keys of the identifiers it
 * names, which the scope covers), the admission sequence {@code stockade:{g0}:gate:sequence} (every
 * admission on the server moves it; the script that moves it also writes an intent and a pending
 * entry, both in scope) and {@code token_entry} (event processors claim and advance their tokens
 * all the time; no request writes there). There are no sagas, so no saga table.
 */
public record StoreSnapshot(
    Map<String, String> redis, long events, long maxGlobalIndex, List<Map<String, Object>> rows) {

  private static final String MARKER = "stockade:{g0}:gate";
  private static final String PENDING = "stockade:{g0}:gate:pending";

  /**
   * Waits until the keys and rows of {@code token} stop changing between two snapshots (what a
   * test's setup started, such as the gate follower, has settled).
   */
  public static void awaitSettled(StringRedisTemplate redis, JdbcTemplate jdbc, String token) {
    List<StoreSnapshot> last = new ArrayList<>(List.of(take(redis, jdbc, token)));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(150))
        .until(
            () -> {
              StoreSnapshot now = take(redis, jdbc, token);
              boolean settled = now.inScope().equals(last.get(0).inScope());
              last.set(0, now);
              return settled;
            });
  }

  /** Takes a snapshot of the keys and rows whose identifiers contain {@code token}. */
  public static StoreSnapshot take(StringRedisTemplate redis, JdbcTemplate jdbc, String token) {
    Predicate<String> inScope = name -> name.contains(token) || name.contains("{}");
    Map<String, String> keys = new TreeMap<>();
    try (Cursor<String> cursor =
        redis.scan(ScanOptions.scanOptions().match("stockade:*").count(1000).build())) {
      cursor.forEachRemaining(
          key -> {
            if (inScope.test(key) || key.equals(MARKER) || key.equals(PENDING)) {
              String value = describe(redis, key, inScope);
              if (value != null) {
                keys.put(key, value);
              }
            }
          });
    }
    Map<String, Object> size =
        jdbc.queryForMap(
            "select count(*) as events, coalesce(max(global_index), 0) as max_index"
                + " from domain_event_entry");
    String like = "%" + token + "%";
    List<Map<String, Object>> rows =
        new ArrayList<>(
            jdbc.queryForList(
                "select 'event' as source, global_index, aggregate_identifier, sequence_number,"
                    + " type, event_identifier, payload_type, md5(payload) as payload,"
                    + " md5(meta_data) as meta_data, time_stamp from domain_event_entry"
                    + " where aggregate_identifier like ? or aggregate_identifier = ''"
                    + " order by global_index",
                like));
    rows.addAll(
        jdbc.queryForList(
            "select 'snapshot' as source, aggregate_identifier, sequence_number, event_identifier,"
                + " md5(payload) as payload from snapshot_event_entry"
                + " where aggregate_identifier like ? or aggregate_identifier = ''"
                + " order by aggregate_identifier, sequence_number",
            like));
    rows.addAll(
        jdbc.queryForList(
            "select 'deadline' as source, task_name, task_instance, md5(task_data) as task_data,"
                + " execution_time, picked, version from scheduled_tasks"
                + " where task_instance like ? order by task_name, task_instance",
            like));
    rows.addAll(
        jdbc.queryForList(
            "select 'expiry' as source, reservation_id, due_at from reservation_expiry"
                + " where reservation_id like ? order by reservation_id",
            like));
    rows.addAll(jdbc.queryForList("select 'epoch' as source, g.* from gate_epoch g order by id"));
    return new StoreSnapshot(
        keys,
        ((Number) size.get("events")).longValue(),
        ((Number) size.get("max_index")).longValue(),
        rows);
  }

  /** The keys and rows in scope, without the event store's size (others' events move it). */
  public List<Object> inScope() {
    return List.of(redis, rows);
  }

  /**
   * Asserts that {@code later} holds exactly what this snapshot held: the same keys and rows in
   * scope, and no event removed or added up to this snapshot's highest global index. Events of
   * other aggregates stored since are allowed: they are others' work.
   */
  public void assertUnchanged(StoreSnapshot later, JdbcTemplate jdbc, String what) {
    assertThat(later.redis()).as("Redis keys in scope after %s", what).isEqualTo(redis);
    assertThat(later.rows()).as("database rows in scope after %s", what).isEqualTo(rows);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from domain_event_entry where global_index <= ?",
                Long.class,
                maxGlobalIndex))
        .as("events up to global index %d after %s", maxGlobalIndex, what)
        .isEqualTo(events);
  }

  /** Type, whether it expires and full value of a key; null for a pending list of others only. */
  private static String describe(StringRedisTemplate redis, String key, Predicate<String> inScope) {
    DataType type = redis.type(key);
    Long ttl = redis.getExpire(key);
    String expires = ttl != null && ttl >= 0 ? " (expires)" : "";
    Object value =
        switch (type) {
          case HASH -> new TreeMap<>(redis.opsForHash().entries(key));
          case ZSET -> {
            Map<String, Double> members = new TreeMap<>();
            for (TypedTuple<String> member : redis.opsForZSet().rangeWithScores(key, 0, -1)) {
              if (!key.equals(PENDING) || inScope.test(member.getValue())) {
                members.put(member.getValue(), member.getScore());
              }
            }
            if (members.isEmpty() && key.equals(PENDING)) {
              // Others' entries only (the list vanishes once they are gone): nothing in scope.
              yield null;
            }
            yield members;
          }
          case STRING -> redis.opsForValue().get(key);
          case SET -> new TreeSet<>(redis.opsForSet().members(key));
          case LIST -> redis.opsForList().range(key, 0, -1);
          default -> type;
        };
    return value == null ? null : type.code() + expires + " " + value;
  }
}
