package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.util.ReflectionTestUtils;
import tools.jackson.databind.JsonNode;

/**
 * The gate rebuilt from a record of 212,500 events on one Redis (see {@link LargeRecord}), by two
 * command-side instances whose rebuild lease (1.5 s, renewed every quarter of it) is shorter than
 * the rebuild (2.6 s on an idle machine, more under load): the one that rebuilds keeps the rebuild,
 * also from an instance whose clock runs ten minutes ahead, and the gate then holds what the record
 * says and admits and refuses by it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GateRebuildAtScaleIntegrationTest {

  /** A database of each run's own, dropped at its end: the record is rebuilt from it alone. */
  private static final String DATABASE =
      "stockade_test_scale_" + UUID.randomUUID().toString().substring(0, 8);

  private static final Duration LEASE = Duration.ofMillis(1500);

  private static EmbeddedRedis redis;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private static final List<AdjustableClock> clocks =
      List.of(new AdjustableClock(), new AdjustableClock());
  private static StringRedisTemplate gateRedis;
  private static GateLayout layout;
  private static JdbcTemplate jdbc;
  private static LargeRecord record;

  @BeforeAll
  static void startTwoInstancesOnALargeRecord() throws IOException {
    Path data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "scale-redis");
    redis = EmbeddedRedis.start(data);
    for (int i = 0; i < 2; i++) {
      SpringApplicationBuilder builder = new SpringApplicationBuilder(CommandSideApplication.class);
      List<String> args =
          new ArrayList<>(
              List.of(
                  "--server.port=0",
                  "--spring.data.redis.host=127.0.0.1",
                  "--spring.data.redis.port=" + redis.port(),
                  "--stockade.local-infra.database=" + DATABASE,
                  "--stockade.gate.rebuild-lease=" + LEASE.toMillis() + "ms",
                  "--stockade.gate.reopen-interval=200ms",
                  // The first rebuild folds the whole record; the second goes on from a
                  // checkpoint the test takes.
                  "--stockade.gate.checkpoint.enabled=false",
                  "--stockade.gate.checkpoint.every-events=1"));
      AdjustableClock clock = clocks.get(i);
      builder.initializers(context -> useClock(context, clock));
      instances.add(builder.run(args.toArray(String[]::new)));
    }
    // The service's own timeout (500 ms) is too short for a FLUSHALL or an HGETALL at this scale.
    gateRedis = TestRedis.template("127.0.0.1", redis.port(), Duration.ofSeconds(60));
    layout = instances.get(0).getBean(GateLayout.class);
    jdbc = instances.get(0).getBean(JdbcTemplate.class);
    long started = System.nanoTime();
    record = LargeRecord.append(instances.get(0), UUID.randomUUID().toString().substring(0, 8));
    System.out.printf(
        "Appended %d events in %d ms%n",
        record.events, Duration.ofNanos(System.nanoTime() - started).toMillis());
    // The gate follower applies the record's registrations and replenishments; once it has reached
    // the head of the store it leaves the gate alone, and only the tests' probes make an instance
    // open it.
    await().atMost(Duration.ofSeconds(180)).until(GateRebuildAtScaleIntegrationTest::followerDone);
  }

  @AfterAll
  static void stop() throws SQLException {
    LargeRecord.dropDatabase(instances, DATABASE);
    if (redis != null) {
      redis.stop();
    }
  }

  /**
   * The other instance tries to open the gate every 200 ms throughout a rebuild of many times the
   * lease: the rebuilding instance renews the lease as it goes, and keeps the rebuild.
   */
  @Test
  @Order(1)
  void aRebuildOfOneHundredThousandHoldersLongerThanTheLeaseKeepsItsOwnerAndWritesTheRecord() {
    Rebuild rebuild = rebuildWhileTheOtherInstanceTries(Duration.ZERO);

    assertThat(rebuild.took).as("a rebuild longer than the lease").isGreaterThan(LEASE);
    assertThat(rebuild.owners).as("one owner throughout").hasSize(1);
    assertThat(epoch()).as("rebuilt once").isEqualTo(rebuild.epochBefore + 1);
    record.assertGate(gateRedis, layout);
    assertThat(rebuild.progress)
        .as("the rebuilding instance's health tells how far it is")
        .extracting(Seen::phase)
        .contains("READING", "WRITING");
    assertThat(rebuild.progress).allSatisfy(seen -> assertThat(seen.percent()).isBetween(0, 100));
    assertThat(
            rebuild.progress.stream()
                .filter(seen -> seen.phase().equals("WRITING"))
                .allMatch(seen -> seen.percent() == 100))
        .isTrue();

    ApiClient http = http(1);
    String sku = record.skus.get(0);
    record.touched.add(sku);
    record.touched.add(record.skus.get(1));
    assertThat(reserve(http, "new-hot", "h-new", record.hot, 3)).isEqualTo(201);
    assertThat(reserve(http, "over-limit", LargeRecord.skuUser(0), sku, 3))
        .as("su-0 holds 3 of the limit of 5")
        .isEqualTo(409);
    assertThat(reserve(http, "to-limit", LargeRecord.skuUser(0), sku, 2)).isEqualTo(201);
    String other = record.skus.get(1);
    for (int user = 0; user < 10; user++) {
      assertThat(reserve(http, "rest-" + user, "someone-" + user, other, 5)).isEqualTo(201);
    }
    assertThat(reserve(http, "sold-out", "someone-else", other, 1))
        .as("the 50 left are taken")
        .isEqualTo(409);
    // The sale's state came back with the gate: a paused SKU refuses a user with nothing held,
    // one paused and resumed admits.
    assertThat(LargeRecord.sale(3)).isEqualTo(LargeRecord.Sale.PAUSED);
    assertThat(reserve(http, "paused", "someone-new", record.skus.get(3), 1))
        .as("paused, 50 units available")
        .isEqualTo(409);
    assertThat(LargeRecord.sale(7)).isEqualTo(LargeRecord.Sale.RESUMED);
    record.touched.add(record.skus.get(7));
    assertThat(reserve(http, "resumed", "someone-new", record.skus.get(7), 1)).isEqualTo(201);
    assertThat(gateRedis.opsForHash().entries(layout.counters(record.hot)))
        .containsEntry("available", String.valueOf(record.hotAvailable - 3))
        .containsEntry("reserved", String.valueOf(record.hotReserved + 3));
    record.hotAvailable -= 3;
    record.hotReserved += 3;
    record.hotHolders.put("h-new", 3L);
  }

  /**
   * The lease is judged by the database's clock: a clock ten minutes ahead sees it live. This
   * rebuild goes on from a checkpoint of the whole record, the first test's events included.
   */
  @Test
  @Order(2)
  void anInstanceWhoseClockRunsAheadCannotTakeALiveRebuildOver() {
    long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    GateCheckpointWriter writer = instances.get(0).getBean(GateCheckpointWriter.class);
    GateCheckpoints.Checkpoint checkpoint =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(200))
            .until(writer::checkpointIfDue, taken -> taken.isPresent())
            .orElseThrow();
    assertThat(checkpoint.position()).isGreaterThanOrEqualTo(head);
    assertThat(checkpoint.events()).isGreaterThan(record.events);

    Rebuild rebuild = rebuildWhileTheOtherInstanceTries(Duration.ofMinutes(10));

    assertThat(
            instances.stream()
                .map(instance -> instance.getBean(GateRebuild.class).lastCheckpoint())
                .toList())
        .as("the rebuild went on from the checkpoint")
        .contains(checkpoint.id());
    assertThat(rebuild.owners).as("one owner throughout").hasSize(1);
    assertThat(epoch()).as("rebuilt once").isEqualTo(rebuild.epochBefore + 1);
    record.assertGate(gateRedis, layout);
  }

  /** The rebuild's progress as the rebuilding instance's health showed it: phase and percent. */
  private record Seen(String phase, int percent) {}

  private record Rebuild(
      long epochBefore, Set<String> owners, Duration took, List<Seen> progress) {}

  /**
   * Flushes Redis, lets an instance begin the rebuild (whichever finds the gate gone first: a
   * probe, a sweep or the gate follower), then moves the other one's clock by {@code otherClock}
   * and has it try to open the gate until the first has rebuilt it; returns who owned the rebuild
   * meanwhile.
   */
  private static Rebuild rebuildWhileTheOtherInstanceTries(Duration otherClock) {
    await().atMost(Duration.ofSeconds(120)).until(() -> ready(0) && ready(1));
    // A follower still at work after the flush would find the gate closed and have its own
    // instance begin the rebuild.
    await().atMost(Duration.ofSeconds(180)).until(GateRebuildAtScaleIntegrationTest::followerDone);
    long epochBefore = epoch();
    gateRedis.execute(
        (RedisCallback<Object>)
            connection -> {
              connection.serverCommands().flushAll();
              return null;
            });
    long started = System.nanoTime();
    ready(0);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> "REBUILDING".equals(state()));
    Set<String> owners = new HashSet<>();
    String began = owner();
    owners.add(began);
    int rebuilding = began.equals(name(0)) ? 0 : 1;
    int other = 1 - rebuilding;
    assertThat(name(rebuilding)).as("one of the two instances began the rebuild").isEqualTo(began);
    clocks.get(rebuilding).offset = Duration.ZERO;
    clocks.get(other).offset = otherClock;
    ready(other);
    List<Seen> progress = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              owners.add(owner());
              JsonNode rebuild =
                  http(rebuilding)
                      .get("/actuator/health/readiness")
                      .getBody()
                      .path("components")
                      .path("gate")
                      .path("details")
                      .path("rebuild");
              if (!rebuild.isMissingNode()) {
                progress.add(
                    new Seen(rebuild.path("phase").asString(), rebuild.path("percent").asInt()));
              }
              return "OPEN".equals(state());
            });
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    System.out.printf("Gate rebuilt in %d ms%n", took.toMillis());
    await().atMost(Duration.ofSeconds(30)).until(() -> ready(0) && ready(1));
    return new Rebuild(epochBefore, owners, took, progress);
  }

  /** Whether the instance that holds the gate follower's segment has reached the store's head. */
  private static boolean followerDone() {
    long head =
        instances.get(0).getBean(EventStorageEngine.class).createHeadToken().position().orElse(0);
    return instances.stream()
        .map(
            instance ->
                instance
                    .getBean(EventProcessingConfiguration.class)
                    .eventProcessor("gate-follower", StreamingEventProcessor.class)
                    .orElseThrow())
        .flatMap(processor -> processor.processingStatus().values().stream())
        .anyMatch(status -> status.isCaughtUp() && status.getCurrentPosition().orElse(-1) >= head);
  }

  /** The name an instance's rebuilds are owned by. */
  private static String name(int instance) {
    return (String)
        ReflectionTestUtils.getField(instances.get(instance).getBean(GateKeeper.class), "me");
  }

  private static boolean ready(int instance) {
    return http(instance).get("/actuator/health/readiness").getStatusCode().value() == 200;
  }

  private static int reserve(ApiClient http, String id, String user, String sku, int units) {
    return http.send(
            HttpMethod.POST,
            "/api/reservations",
            "{\"reservationId\":\"scale-"
                + id
                + "-"
                + UUID.randomUUID()
                + "\",\"userId\":\""
                + user
                + "\",\"lines\":[{\"skuId\":\""
                + sku
                + "\",\"quantity\":"
                + units
                + "}]}")
        .getStatusCode()
        .value();
  }

  private static ApiClient http(int instance) {
    return new ApiClient(
        Integer.parseInt(
            instances.get(instance).getEnvironment().getProperty("local.server.port")));
  }

  private static String state() {
    return jdbc.queryForObject("select state from gate_epoch where id = 1", String.class);
  }

  private static String owner() {
    return jdbc.queryForObject("select owner from gate_epoch where id = 1", String.class);
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }

  /** Gives a service the clock {@code clock} instead of the system's. */
  static void useClock(ConfigurableApplicationContext context, Clock clock) {
    context.addBeanFactoryPostProcessor(
        factory -> {
          BeanDefinitionRegistry registry = (BeanDefinitionRegistry) factory;
          registry.removeBeanDefinition("clock");
          registry.registerBeanDefinition(
              "clock", new RootBeanDefinition(Clock.class, () -> clock));
        });
  }

  /** The system's clock, moved by {@code offset}. */
  static final class AdjustableClock extends Clock {

    volatile Duration offset = Duration.ZERO;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
    }
  }
}
