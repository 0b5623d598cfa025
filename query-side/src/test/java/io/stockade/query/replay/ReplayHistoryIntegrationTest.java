package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The table of replays keeps the last {@code stockade.replay.keep} ended ones: requesting a replay
 * deletes the older ones, and never the one in progress. Its own database, since a replay resets
 * the tokens of every instance.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_replay_history",
      "stockade.reconciliation.interval=0s",
      "stockade.replay.poll-interval=200ms",
      "stockade.replay.keep=3"
    })
class ReplayHistoryIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void requestingAReplayDeletesTheEndedOnesButTheLastKept() {
    // One left in progress by an earlier run is taken over and finished first.
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                jdbc.queryForObject(
                        "select count(*) from read_model_replay where in_progress = 1",
                        Integer.class)
                    == 0);
    jdbc.update("delete from read_model_replay where in_progress is null");
    LocalDateTime longAgo = LocalDateTime.of(2001, 1, 1, 0, 0);
    List<String> old = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String id = "old-" + UUID.randomUUID();
      old.add(id);
      LocalDateTime at = longAgo.plusDays(i);
      jdbc.update(
          "insert into read_model_replay (id, status, head, requested_at, finished_at, owner,"
              + " lease_until, reset_deadline) values (?, ?, 0, ?, ?, 'an-instance', ?, ?)",
          id,
          i % 2 == 0 ? "DONE" : "FAILED",
          at,
          at,
          at,
          at);
    }
    List<String> kept = List.of(old.get(4), old.get(3), old.get(2));

    ApiClient http = new ApiClient(port);
    ResponseEntity<JsonNode> started = http.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();

    assertThat(ended()).isEqualTo(kept);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from read_model_replay where id = ? and in_progress = 1",
                Integer.class,
                replayId))
        .isEqualTo(1);
    JsonNode ended =
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () -> http.get("/api/replays/" + replayId).getBody(),
                replay -> !"RUNNING".equals(replay.get("status").asString()));
    assertThat(ended.get("status").asString()).isEqualTo("DONE");
    assertThat(http.get("/api/replays/" + old.get(0)).getStatusCode().value()).isEqualTo(404);
  }

  /** The ended replays' ids, the last requested first. */
  private List<String> ended() {
    return jdbc.queryForList(
        "select id from read_model_replay where in_progress is null"
            + " order by requested_at desc, id desc",
        String.class);
  }
}
