package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.Reserving;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
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
 * One reservation id admitted twice: reused by another user while the first is recorded (the second
 * admission lands in another bucket of the SKU, a partition where the id has no intent yet), or
 * admitted anew once the gate forgot the first (after the intent's retention). Every gate step
 * after the admission (confirm, release, recorded, the recovery sweeper's release) acts on the
 * admission it names, the one the record holds or the one it settles, and never on the other: the
 * recorded reservation keeps its units, the unrecorded admission gives its units back.
 *
 * <p>The other admission is made at the gate directly: a request the gate admitted that is still on
 * its way to the record (or died there). The recovery sweeper is run by the test (its schedule is
 * out of the way, its bound zero), so that nothing here depends on timing.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_identity",
      // Several partitions on one Redis, so that a SKU can be split into buckets.
      "stockade.gate.partitions=16",
      "stockade.gate.intent-retention=2s",
      "stockade.recovery.enabled=true",
      "stockade.recovery.unrecorded-after=0s",
      "stockade.recovery.interval=1h"
    })
@DirtiesContext
class AdmissionIdentityIntegrationTest {

  private static final int BUCKETS = 3;

  private static final EmbeddedRedis REDIS =
      ownRedis("identity-redis-" + UUID.randomUUID().toString().substring(0, 8));

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    properties.add("spring.data.redis.host", () -> "127.0.0.1");
    properties.add("spring.data.redis.port", REDIS::port);
  }

  @LocalServerPort private int port;
  @Autowired private Reserving gate;
  @Autowired private RecoveringUnrecordedAdmissions sweeper;
  @Autowired private StringRedisTemplate redis;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  /**
   * (a) The sweeper settles the unrecorded admission of a reused id by releasing it: it releases
   * that admission only, not the recorded one in the other bucket.
   */
  @Test
  void theSweeperReleasesTheUnrecordedAdmissionOfAReusedIdAndNotTheRecordedOne() {
    ApiClient http = new ApiClient(port);
    String sku = "hot-a-" + run;
    String id = "R-a-" + run;
    register(http, sku);
    String winner = user("a-winner", 0);
    String loser = user("a-loser", 1);

    assertThat(reserve(http, id, winner, sku, 2).getStatusCode().value()).isEqualTo(201);
    // The same id for another user: admitted in that user's bucket, where the id has no intent.
    assertThat(admitAtTheGate(id, loser, sku, 3)).isInstanceOf(AdmissionDecision.Admitted.class);
    String winners = bucket(sku, winner);
    String losers = bucket(sku, loser);
    assertThat(winners).isNotEqualTo(losers);
    assertThat(total(sku, "reserved")).isEqualTo(5);
    assertThat(pendingEntries(id)).as("the loser's admission, for the sweeper").isEqualTo(1);

    sweeper.sweep();

    assertThat(counters(winners))
        .as("the recorded reservation's units are still held")
        .containsEntry("reserved", "2");
    assertThat(counters(losers)).containsEntry("reserved", "0");
    assertThat(redis.opsForHash().get(winners + ":holders", winner)).isEqualTo("2");
    assertThat(redis.opsForHash().get(losers + ":holders", loser)).isNull();
    assertThat(total(sku, "available")).isEqualTo(28);
    assertThat(pendingEntries(id)).isZero();

    assertThat(confirm(http, id).getStatusCode().value()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(counters(winners))
                    .containsEntry("reserved", "0")
                    .containsEntry("sold", "2"));
    assertThat(total(sku, "available") + total(sku, "reserved") + total(sku, "sold")).isEqualTo(30);
  }

  /**
   * (b) The reservation recorded first clears its own pending entry only: the other admission of
   * the id (in another bucket, whose request never recorded it) stays on the sweeper's list, and
   * the sweeper gives its units back.
   */
  @Test
  void recordingAReservationLeavesThePendingEntryOfAnotherAdmissionOfItsId() {
    ApiClient http = new ApiClient(port);
    String sku = "hot-b-" + run;
    String id = "R-b-" + run;
    register(http, sku);
    String winner = user("b-winner", 0);
    String loser = user("b-loser", 2);

    // The loser's request is admitted first and is still on its way to the record when the winner's
    // request is admitted and recorded; the loser's request then dies before it could withdraw.
    assertThat(admitAtTheGate(id, loser, sku, 3)).isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(reserve(http, id, winner, sku, 2).getStatusCode().value()).isEqualTo(201);
    String winners = bucket(sku, winner);
    String losers = bucket(sku, loser);
    assertThat(winners).isNotEqualTo(losers);

    assertThat(pendingEntries(id))
        .as("the loser's admission is still pending: the sweeper's only way to it")
        .isEqualTo(1);

    sweeper.sweep();

    assertThat(counters(losers)).containsEntry("reserved", "0");
    assertThat(redis.opsForHash().get(losers + ":holders", loser)).isNull();
    assertThat(counters(winners)).containsEntry("reserved", "2");
    assertThat(total(sku, "available")).isEqualTo(28);
    assertThat(pendingEntries(id)).isZero();
  }

  /**
   * (c) After the intent's retention the gate has forgotten a confirmed reservation and admits its
   * id anew; a repeat of the old reservation's confirm leaves the new admission alone, and the
   * sweeper gives the new admission's units back.
   */
  @Test
  void aRepeatedConfirmAfterTheRetentionDoesNotConfirmANewAdmissionOfTheId() {
    ApiClient http = new ApiClient(port);
    String sku = "plain-c-" + run;
    String id = "R-c-" + run;
    http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 5}");
    assertThat(reserve(http, id, "u-c-1", sku, 2).getStatusCode().value()).isEqualTo(201);
    assertThat(confirm(http, id).getStatusCode().value()).isEqualTo(200);
    String counters = home(sku);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(redis.keys("stockade:*:reservation:" + id)).isEmpty());

    assertThat(admitAtTheGate(id, "u-c-2", sku, 1)).isInstanceOf(AdmissionDecision.Admitted.class);
    ResponseEntity<JsonNode> repeated = confirm(http, id);

    assertThat(repeated.getStatusCode().value()).isEqualTo(200);
    assertThat(counters(counters))
        .as("the repeat confirmed nothing more")
        .containsEntry("sold", "2")
        .containsEntry("reserved", "1");

    sweeper.sweep();

    assertThat(counters(counters))
        .containsEntry("available", "3")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "2");
    assertThat(pendingEntries(id)).isZero();
  }

  private static EmbeddedRedis ownRedis(String name) {
    EmbeddedRedis redis = EmbeddedRedis.start(Path.of(System.getProperty("java.io.tmpdir"), name));
    Runtime.getRuntime().addShutdownHook(new Thread(redis::stop));
    return redis;
  }

  private static void register(ApiClient http, String sku) {
    assertThat(
            http.send(
                    HttpMethod.PUT,
                    "/api/skus/" + sku,
                    "{\"initialStock\": 30, \"buckets\": " + BUCKETS + "}")
                .getStatusCode()
                .value())
        .isEqualTo(201);
  }

  /**
   * A user of this run whose reservations of a SKU in {@link #BUCKETS} buckets take from bucket
   * {@code bucket}, by the gate's rule (the user id's hash); {@link #bucket} checks where they
   * went.
   */
  private String user(String name, int bucket) {
    for (int n = 0; ; n++) {
      String user = name + "-" + run + "-" + n;
      if (Math.floorMod(user.hashCode(), BUCKETS) == bucket) {
        return user;
      }
    }
  }

  /** A request the gate admitted that has not reached the record (yet, or ever). */
  private AdmissionDecision admitAtTheGate(String id, String user, String sku, int quantity) {
    return gate.reserve(
        new Admission(
            id,
            user,
            List.of(new ReservationLine(sku, quantity)),
            Duration.ofMinutes(15),
            Instant.now()));
  }

  private static ResponseEntity<JsonNode> reserve(
      ApiClient http, String id, String user, String sku, int quantity) {
    return http.send(
        HttpMethod.POST, "/api/reservations", ApiClient.reservation(id, user, sku, quantity));
  }

  private static ResponseEntity<JsonNode> confirm(ApiClient http, String id) {
    return http.send(HttpMethod.POST, "/api/reservations/" + id + "/confirm", null);
  }

  /** The counters key of each of the SKU's buckets. */
  private Set<String> buckets(String sku) {
    Set<String> keys = redis.keys("stockade:*:sku:" + sku);
    assertThat(keys).isNotEmpty();
    return keys;
  }

  /** The counters key of the SKU's only bucket. */
  private String home(String sku) {
    Set<String> keys = buckets(sku);
    assertThat(keys).hasSize(1);
    return keys.iterator().next();
  }

  /** The counters key of the bucket whose holders include the user (who must hold units). */
  private String bucket(String sku, String user) {
    for (String counters : buckets(sku)) {
      if (redis.opsForHash().hasKey(counters + ":holders", user)) {
        return counters;
      }
    }
    throw new AssertionError(user + " holds no units of " + sku);
  }

  private Map<Object, Object> counters(String key) {
    return new TreeMap<>(redis.opsForHash().entries(key));
  }

  private long total(String sku, String field) {
    long total = 0;
    for (String counters : buckets(sku)) {
      Object value = redis.opsForHash().get(counters, field);
      total += value == null ? 0 : Long.parseLong(value.toString());
    }
    return total;
  }

  /** The reservation's entries on every partition's pending list. */
  private long pendingEntries(String id) {
    long entries = 0;
    for (String pending : redis.keys("stockade:*:gate:pending")) {
      String tag = pending.substring(0, pending.length() - "gate:pending".length());
      if (redis.opsForZSet().score(pending, tag + "reservation:" + id) != null) {
        entries++;
      }
    }
    return entries;
  }
}
