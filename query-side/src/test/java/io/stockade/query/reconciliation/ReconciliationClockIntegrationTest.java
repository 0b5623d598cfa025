package io.stockade.query.reconciliation;

import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.numbers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A query-side instance whose clock is 15 s off (more than the in-flight bound of 10 s) judges a
 * pending admission by its age on the clock of the Redis that admitted it, as the command side's
 * sweeper does: a young one is in flight, one pending longer than the bound is not explained.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.reconciliation.in-flight-bound=10s",
      "stockade.reconciliation.interval=0s",
      "stockade.reconciliation.max-age=0s"
    })
@DirtiesContext
class ReconciliationClockIntegrationTest {

  private static final Duration SKEW = Duration.ofSeconds(15);

  private static final EmbeddedRedis REDIS = GateFixture.ownRedis("reconciliation-clock-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    GateFixture.useRedis(properties, REDIS);
  }

  @TestConfiguration(proxyBeanMethods = false)
  static class SkewedClockOfThisInstance {

    @Bean
    @Primary
    SkewedClock skewedClock() {
      return new SkewedClock();
    }
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;
  @Autowired private SkewedClock clock;

  private ApiClient http;
  private GateFixture gate;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    gate = new GateFixture(eventStore, transaction, redis);
  }

  @AfterEach
  void cleanUp() {
    clock.offset = Duration.ZERO;
    gate.clean();
  }

  @Test
  void aYoungAdmissionIsInFlightOnAnInstanceWhoseClockRunsAhead() {
    String sku = registered("clk-ahead");
    clock.offset = SKEW;

    gate.admit(gate.tag(), GateFixture.unique("clk-A"), sku, 3, Duration.ZERO);

    JsonNode line = line(sku);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    JsonNode difference = line.get("difference");
    assertThat(difference.get("inFlight").get("pendingAdmissions").asInt())
        .as("explained by the admission, young by Redis's clock")
        .isEqualTo(1);
    assertThat(numbers(difference.get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);
  }

  @Test
  void anAdmissionPendingLongerThanTheBoundIsNotExplainedOnAnInstanceWhoseClockRunsBehind() {
    String sku = registered("clk-behind");
    clock.offset = SKEW.negated();

    gate.admit(gate.tag(), GateFixture.unique("clk-B"), sku, 3, Duration.ofSeconds(12));

    JsonNode difference = line(sku).get("difference");
    assertThat(numbers(difference.get("gate"))).containsExactly(0L, -3L, 3L, 0L);
    assertThat(difference.get("inFlight").get("pendingAdmissions").asInt())
        .as("pending for 12 s by Redis's clock, longer than the bound")
        .isZero();
    assertThat(numbers(difference.get("unexplained"))).containsExactly(0L, -3L, 3L, 0L);
  }

  /**
   * A SKU of 10 units, registered in the record and the gate, once the check sees it consistent.
   */
  private String registered(String prefix) {
    String sku = GateFixture.unique(prefix);
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> line(sku).get("status").asString(), "CONSISTENT"::equals);
    return sku;
  }

  private JsonNode line(String sku) {
    return http.get("/api/reconciliation/skus/" + sku).getBody().get("skus").get(0);
  }

  /** The clock of this instance: the system's, off by an offset the test sets. */
  static final class SkewedClock extends Clock {

    volatile Duration offset = Duration.ZERO;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return Clock.offset(Clock.system(zone), offset);
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
    }
  }
}
