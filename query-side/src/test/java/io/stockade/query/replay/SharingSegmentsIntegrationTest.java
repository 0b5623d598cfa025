package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.query.QuerySideApplication;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two query-side instances on one database of their own share the projections' segments: the one
 * that claimed them all lets go of those beyond its share and the other claims them; when one
 * stops, the other takes every segment over.
 */
class SharingSegmentsIntegrationTest {

  private static final List<String> PROJECTIONS =
      List.of("stock-projection", "reservation-projection");

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  @AfterEach
  void stopInstances() {
    instances.forEach(ConfigurableApplicationContext::close);
  }

  @Test
  void twoInstancesEachProcessOneSegmentOfEveryProjectionAndOneTakesAllOverWhenTheOtherStops() {
    ConfigurableApplicationContext a = start();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(owners(a).values()).hasSize(4).containsOnly(name(a)));
    ConfigurableApplicationContext b = start();

    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              Map<String, String> owners = owners(a);
              for (String projection : PROJECTIONS) {
                assertThat(
                        Arrays.asList(owners.get(projection + "/0"), owners.get(projection + "/1")))
                    .as("owners of %s's segments", projection)
                    .containsExactlyInAnyOrder(name(a), name(b));
              }
            });

    b.close();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(owners(a).values()).hasSize(4).containsOnly(name(a)));
  }

  @Test
  void forgetsAnInstanceNotSeenForTenTimesTheAliveInterval() {
    ConfigurableApplicationContext a = start();
    JdbcTemplate jdbc = a.getBean(JdbcTemplate.class);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String crashed = "crashed-" + run;
    String paused = "paused-" + run;
    // The alive interval is 10 s: one crashed long ago, one that missed a few beats.
    jdbc.update(
        "insert into query_node (name, seen_at) values"
            + " (?, timestampadd(second, -101, utc_timestamp(6))),"
            + " (?, timestampadd(second, -20, utc_timestamp(6)))",
        crashed,
        paused);

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(nodes(jdbc)).doesNotContain(crashed));
    assertThat(nodes(jdbc)).contains(paused, name(a));
    jdbc.update("delete from query_node where name = ?", paused);
  }

  private static List<String> nodes(JdbcTemplate jdbc) {
    return jdbc.queryForList("select name from query_node", String.class);
  }

  private ConfigurableApplicationContext start() {
    ConfigurableApplicationContext instance =
        new SpringApplicationBuilder(QuerySideApplication.class)
            .run(
                "--server.port=0",
                "--stockade.local-infra.database=stockade_test_segments",
                "--stockade.reconciliation.interval=0s",
                "--stockade.segments.sharing=true",
                "--stockade.segments.interval=500ms",
                "--stockade.segments.alive=10s");
    instances.add(instance);
    return instance;
  }

  private static String name(ConfigurableApplicationContext instance) {
    return instance.getBean(QueryNode.class).name();
  }

  /** Who claims each projection's segments: {@code processor/segment} to owner. */
  private static Map<String, String> owners(ConfigurableApplicationContext instance) {
    Map<String, String> owners = new TreeMap<>();
    instance
        .getBean(JdbcTemplate.class)
        .query(
            "select processor_name, segment, owner from token_entry"
                + " where processor_name in ('stock-projection', 'reservation-projection')"
                + " and owner is not null",
            rs -> {
              owners.put(
                  rs.getString("processor_name") + "/" + rs.getInt("segment"),
                  rs.getString("owner"));
            });
    return owners;
  }
}
