package io.stockade.command.admission.redis;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.data.redis.core.StringRedisTemplate;

/** A snapshot of keys (type and DUMP payload) to prove that a call changed nothing. */
public final class GateKeyDump {

  private GateKeyDump() {}

  public static Map<String, String> of(StringRedisTemplate redis, List<String> keys) {
    Map<String, String> dump = new TreeMap<>();
    for (String key : keys) {
      byte[] payload = redis.dump(key);
      dump.put(
          key,
          redis.type(key).code()
              + ":"
              + (payload == null ? "-" : Base64.getEncoder().encodeToString(payload)));
    }
    return dump;
  }
}
