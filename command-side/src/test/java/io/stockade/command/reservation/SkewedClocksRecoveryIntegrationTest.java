package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.Reserving;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Instances whose clocks are 15 s off (more than the sweeper's bound of 10 s) on one gate: whether
 * an admission was abandoned is judged by the Redis's clock that admitted it, never by the clock of
 * the instance that admitted it nor of the one that sweeps. An admission younger than the bound by
 * that clock is left to its request, which records it; one older is given back.
 *
 * <p>The admission is made at the gate directly, with the admitting instance's clock as its {@code
 * now} (what its request does); the request that records it is a retry of the same reservation,
 * which the gate answers as a duplicate still to be recorded. The sweepers are run by the test (the
 * scheduled one is out of the way), each with the clock of the instance it stands for.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_skewed_clocks",
      "stockade.recovery.enabled=true",
      "stockade.recovery.unrecorded-after=10s",
      "stockade.recovery.interval=1h"
    })
@DirtiesContext
class SkewedClocksRecoveryIntegrationTest {

  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final Duration SKEW = Duration.ofSeconds(15);
  private static final Duration HOLD = Duration.ofMinutes(15);

  private static final EmbeddedRedis REDIS = ownRedis();

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    properties.add("spring.data.redis.host", () -> "127.0.0.1");
    properties.add("spring.data.redis.port", REDIS::port);
  }

  @LocalServerPort private int port;
  @Autowired private Reserving gate;
  @Autowired private ReservationTransitions transitions;
  @Autowired private PendingAdmissions pendingAdmissions;
  @Autowired private CommandGateway commands;
  @Autowired private ReservationRecord stored;
  @Autowired private MeterRegistry meters;
  @Autowired private StringRedisTemplate redis;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void aSweeperWhoseClockRunsAheadLeavesAnotherInstancesYoungAdmissionToItsRequest() {
    ApiClient http = new ApiClient(port);
    String sku = register(http, "ahead");
    String id = "S-ahead-" + run;
    admit(id, sku, Instant.now());

    sweeper(Clock.offset(Clock.systemUTC(), SKEW), BOUND).sweep();

    assertStillPending(id, sku);
    assertRecordedByItsRequest(http, id, sku);
    assertThat(intent(id, "state")).isEqualTo("RESERVED");
    assertThat(pending(id)).as("recorded, off the sweeper's list").isNull();
    assertThat(counters(sku, "reserved")).isEqualTo("2");
  }

  @Test
  void anAdmissionOfAnInstanceWhoseClockRunsBehindIsNotAbandonedBeforeTheBound() {
    ApiClient http = new ApiClient(port);
    String sku = register(http, "behind");
    String id = "S-behind-" + run;
    Instant behind = Instant.now().minus(SKEW);
    admit(id, sku, behind);
    assertThat(intent(id, "admittedAt"))
        .as("the record's times are the admitting instance's")
        .isEqualTo(String.valueOf(behind.toEpochMilli()));

    sweeper(Clock.systemUTC(), BOUND).sweep();

    assertStillPending(id, sku);
    assertRecordedByItsRequest(http, id, sku);
    assertThat(pending(id)).isNull();
  }

  /**
   * The other side of one clock: an admission of an instance whose clock runs ahead is given back
   * once the bound has passed by Redis's clock, not only once the sweeper's clock has caught up
   * with the admitting instance's.
   */
  @Test
  void anAdmissionNeverRecordedIsGivenBackOnceTheBoundHasPassedByRedisClock() {
    ApiClient http = new ApiClient(port);
    String sku = register(http, "lost");
    String id = "S-lost-" + run;
    admit(id, sku, Instant.now().plus(SKEW));
    RecoveringUnrecordedAdmissions sweeper = sweeper(Clock.systemUTC(), Duration.ofSeconds(1));

    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              sweeper.sweep();
              assertThat(intent(id, "state")).isEqualTo("RELEASED");
            });
    assertThat(counters(sku, "available")).isEqualTo("5");
    assertThat(counters(sku, "reserved")).isEqualTo("0");
    assertThat(pending(id)).isNull();
  }

  /** A sweeper as an instance runs it, with that instance's clock. */
  private RecoveringUnrecordedAdmissions sweeper(Clock clock, Duration bound) {
    return new RecoveringUnrecordedAdmissions(
        transitions, pendingAdmissions, commands, stored, clock, meters, bound);
  }

  private void admit(String id, String sku, Instant now) {
    assertThat(
            gate.reserve(
                new Admission(id, user(), List.of(new ReservationLine(sku, 2)), HOLD, now)))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(counters(sku, "reserved")).isEqualTo("2");
  }

  /** The admission's request, retried, stores it: the gate answers it as a duplicate to record. */
  private void assertRecordedByItsRequest(ApiClient http, String id, String sku) {
    ResponseEntity<JsonNode> answer = reserve(http, id, sku);
    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    assertThat(answer.getBody().get("status").asString()).isEqualTo("RESERVED");
  }

  private void assertStillPending(String id, String sku) {
    assertThat(intent(id, "state")).as("not abandoned").isEqualTo("RESERVED");
    assertThat(pending(id)).as("still on the sweeper's list").isNotNull();
    assertThat(counters(sku, "reserved")).as("its units still held").isEqualTo("2");
    assertThat(counters(sku, "available")).isEqualTo("3");
  }

  private String user() {
    return "u-" + run;
  }

  private String register(ApiClient http, String name) {
    String sku = name + "-" + run;
    assertThat(
            http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 5}")
                .getStatusCode()
                .value())
        .isEqualTo(201);
    return sku;
  }

  private ResponseEntity<JsonNode> reserve(ApiClient http, String id, String sku) {
    return http.send(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\""
            + user()
            + "\",\"holdSeconds\":"
            + HOLD.toSeconds()
            + ",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":2}]}");
  }

  private Object intent(String id, String field) {
    Object value = redis.opsForHash().get("stockade:{g0}:reservation:" + id, field);
    return value == null ? null : value.toString();
  }

  private Double pending(String id) {
    return redis
        .opsForZSet()
        .score("stockade:{g0}:gate:pending", "stockade:{g0}:reservation:" + id);
  }

  private String counters(String sku, String field) {
    return String.valueOf(redis.opsForHash().get("stockade:{g0}:sku:" + sku, field));
  }

  private static EmbeddedRedis ownRedis() {
    EmbeddedRedis redis =
        EmbeddedRedis.start(
            Path.of(
                System.getProperty("java.io.tmpdir"),
                "skewed-clocks-redis-" + UUID.randomUUID().toString().substring(0, 8)));
    Runtime.getRuntime().addShutdownHook(new Thread(redis::stop));
    return redis;
  }
}
