package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.command.admission.GateClosedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A session ended while a request that took it is still at work: whatever the torn-down connection
 * throws (an IllegalStateException, or the NullPointerException Spring Data Redis's shared
 * connection throws when the teardown overtakes the call, seen as a 500 under load) is the gate
 * closed, a 503; the same failure in a session still current is a bug, and is thrown as it is.
 */
class GateScriptsSessionEndTest {

  private static final RedisScript<List<Object>> SCRIPT = GateScripts.load("reserve");
  private static final GateLayout.Partition PARTITION = new GateLayout.Partition(0, "{g0}");

  @Test
  void aCallOverTakenByTheEndOfItsSessionFindsTheGateClosed() {
    for (RuntimeException teardown :
        List.of(
            new NullPointerException("this.connectionProvider is null"),
            new IllegalStateException("LettuceConnectionFactory has been STOPPED"))) {
      Sessions sessions = new Sessions();
      GateSession session = new GateSession(failing(teardown), 7);
      sessions.current.set(session);
      GateScripts scripts = new GateScripts(sessions);
      // The keeper ends the session while the call is under way.
      sessions.current.set(null);

      assertThatThrownBy(() -> scripts.run(session, PARTITION, SCRIPT, List.of("k")))
          .isInstanceOf(GateClosedException.class)
          .hasMessageContaining("ended during the call");

      sessions.current.set(session);
      assertThatThrownBy(
              () ->
                  scripts.read(
                      redis -> {
                        sessions.current.set(null);
                        throw teardown;
                      }))
          .as("a read overtaken by the end of its session")
          .isInstanceOf(GateClosedException.class)
          .hasMessageContaining("ended during the call");
    }
  }

  @Test
  void theSameFailureInASessionStillCurrentIsABug() {
    NullPointerException bug = new NullPointerException("a bug");
    Sessions sessions = new Sessions();
    GateSession session = new GateSession(failing(bug), 7);
    sessions.current.set(session);
    GateScripts scripts = new GateScripts(sessions);

    assertThatThrownBy(() -> scripts.run(session, PARTITION, SCRIPT, List.of("k"))).isSameAs(bug);
    assertThatThrownBy(
            () ->
                scripts.read(
                    redis -> {
                      throw bug;
                    }))
        .isSameAs(bug);
    assertThat(sessions.lost).as("a bug does not end the session").isEmpty();
  }

  /** A template whose every script call fails as {@code failure}. */
  private static StringRedisTemplate failing(RuntimeException failure) {
    return new StringRedisTemplate() {
      @Override
      public <T> T execute(RedisScript<T> script, List<String> keys, Object... args) {
        throw failure;
      }
    };
  }

  private static final class Sessions implements GateSessions {

    final AtomicReference<GateSession> current = new AtomicReference<>();
    final List<GateSession> lost = new ArrayList<>();

    @Override
    public GateSession current() {
      return current.get();
    }

    @Override
    public void lost(GateSession session) {
      lost.add(session);
    }
  }
}
