package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.command.admission.redis.GateScripts;
import io.stockade.command.admission.redis.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * restore.lua against a real Redis: an operation of any size is applied, however many values Lua's
 * stack would take in one unpack (about 8,000).
 */
class RestoreScriptTest {

  private static final RedisScript<List<Object>> RESTORE = GateScripts.load("restore");

  private final StringRedisTemplate redis = TestRedis.shared();
  private final String tag = "{restore-" + UUID.randomUUID().toString().substring(0, 8) + "}";
  private final String marker = "stockade:" + tag + ":gate";

  @Test
  void appliesAnHsetOfTwentyThousandFieldsInOneCall() {
    String holders = "stockade:" + tag + ":holders:hot";
    String replenishments = "stockade:" + tag + ":replenishments:hot";
    assertThat(call("BEGIN", List.of())).isEqualTo(1);
    List<String> args = new ArrayList<>(List.of("WRITE"));
    operation(args, "HSET", 2, pairs("u-", 20_000));
    operation(args, "HSET", 3, pairs("R-", 9_001));

    assertThat(call(List.of(holders, replenishments), args)).isEqualTo(1);

    assertThat(redis.opsForHash().size(holders)).isEqualTo(20_000);
    assertThat(redis.opsForHash().get(holders, "u-19999")).isEqualTo("19999");
    assertThat(redis.opsForHash().size(replenishments)).isEqualTo(9_001);
    assertThat(redis.opsForHash().get(replenishments, "R-9000")).isEqualTo("9000");
  }

  @Test
  void refusesAnOperationWithAnOddNumberOfPairValuesBeforeWritingAnything() {
    String first = "stockade:" + tag + ":first";
    String second = "stockade:" + tag + ":second";
    call("BEGIN", List.of());
    List<String> args = new ArrayList<>(List.of("WRITE"));
    operation(args, "HSET", 2, List.of("a", "1"));
    operation(args, "HSET", 3, List.of("a", "1", "b"));

    assertThatThrownBy(() -> call(List.of(first, second), args))
        .hasStackTraceContaining("ERR_ARGUMENT");
    assertThat(redis.hasKey(first)).isFalse();
  }

  private static List<String> pairs(String prefix, int count) {
    List<String> pairs = new ArrayList<>(2 * count);
    for (int i = 0; i < count; i++) {
      pairs.add(prefix + i);
      pairs.add(String.valueOf(i));
    }
    return pairs;
  }

  private static void operation(List<String> args, String name, int key, List<String> values) {
    args.add(name);
    args.add(String.valueOf(key));
    args.add(String.valueOf(values.size()));
    args.addAll(values);
  }

  private long call(String mode, List<String> keys) {
    List<String> args = new ArrayList<>(List.of(mode));
    return call(keys, args);
  }

  private long call(List<String> keys, List<String> modeAndArgs) {
    List<String> allKeys = new ArrayList<>();
    allKeys.add(marker);
    allKeys.addAll(keys);
    List<String> allArgs = new ArrayList<>();
    allArgs.add("7");
    allArgs.addAll(modeAndArgs);
    List<Object> reply = redis.execute(RESTORE, allKeys, allArgs.toArray());
    return ((Number) reply.get(0)).longValue();
  }
}
