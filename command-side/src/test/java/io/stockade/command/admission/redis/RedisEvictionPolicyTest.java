package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.embedded.RedisServer;

/**
 * The gate tells a Redis that may evict its keys from its {@code maxmemory-policy}, also where
 * CONFIG is disabled, as managed Redis services often do: INFO tells then.
 */
class RedisEvictionPolicyTest {

  @Test
  void readsThePolicyFromInfoWhereConfigIsDisabled() throws IOException {
    for (String policy : new String[] {"allkeys-lru", "noeviction"}) {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      RedisServer server =
          RedisServer.newRedisServer()
              .bind("127.0.0.1")
              .port(port)
              .setting("maxmemory-policy " + policy)
              .setting("rename-command CONFIG \"\"")
              .build();
      server.start();
      try {
        StringRedisTemplate redis = TestRedis.template("127.0.0.1", port, Duration.ofSeconds(5));
        LettuceConnectionFactory factory = (LettuceConnectionFactory) redis.getConnectionFactory();
        assertThatThrownBy(
                () ->
                    redis.execute(
                        (RedisCallback<Object>)
                            c -> c.serverCommands().getConfig("maxmemory-policy")))
            .as("CONFIG is disabled")
            .isNotNull();

        String evicting = GateServers.evictingServers(factory, redis);

        if (policy.equals("noeviction")) {
          assertThat(evicting).isNull();
        } else {
          assertThat(evicting).isEqualTo("Redis has maxmemory-policy allkeys-lru");
        }
        factory.destroy();
      } finally {
        server.stop();
      }
    }
  }
}
