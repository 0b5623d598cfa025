package io.stockade.command.draw;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.draw.DrawSeed;
import io.stockade.api.sku.SkuEvent;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TestTokens;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A pre-queue's draw is committed to with its schedule: the seed is made once per opening (every
 * SKU opening then with a pre-queue is in that draw), stays out of every event, and its commitment
 * goes into the SKU's {@code SaleScheduled} and {@code GET /api/skus/{skuId}/draw}; it never
 * changes for that opening, whichever instance, path (schedule or registration) or repeat asks.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DrawCommitmentHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String run;

  /** No sale member: on sale from the registration. */
  private static final String NONE = "none";

  /** An opening of this run's own: the draws of other runs and tests are at other instants. */
  private Instant opensAt;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
    opensAt =
        Instant.now()
            .plus(2, ChronoUnit.DAYS)
            .truncatedTo(ChronoUnit.SECONDS)
            .plusMillis(ThreadLocalRandom.current().nextInt(1, 1_000_000));
  }

  @Test
  void aSaleScheduledWithAPrequeueIsCommittedToItsDrawAndTheSeedStaysSecret() {
    String sku = register("a", null);
    ResponseEntity<JsonNode> scheduled = schedule(sku, opensAt, 60);
    assertThat(scheduled.getStatusCode().value()).as(scheduled.toString()).isEqualTo(200);
    assertThat(scheduled.getBody().get("sale").get("prequeueSeconds").asInt()).isEqualTo(60);

    ResponseEntity<JsonNode> draw = http.get("/api/skus/" + sku + "/draw");
    assertThat(draw.getStatusCode().value()).as(draw.toString()).isEqualTo(200);
    JsonNode body = draw.getBody();
    String commitment = body.get("drawCommitment").asString();
    assertThat(commitment).matches("[0-9a-f]{64}");
    assertThat(body.get("skuId").asString()).isEqualTo(sku);
    assertThat(Instant.parse(body.get("opensAt").asString())).isEqualTo(opensAt);
    assertThat(body.get("seed").isNull()).as("the seed, before the draw").isTrue();
    assertThat(body.get("queued").asLong()).isZero();
    assertThat(body.get("admitted").asLong()).isZero();
    assertThat(body.get("order")).isEmpty();

    String seed = seed(opensAt);
    assertThat(new DrawSeed(seed).commitment())
        .as("SHA-256 of the kept seed")
        .isEqualTo(commitment);
    List<String> payloads = payloads(sku);
    assertThat(payloads).anyMatch(payload -> payload.contains(commitment));
    assertThat(payloads).noneMatch(payload -> payload.contains(seed));

    assertThat(schedule(sku, opensAt, 60).getStatusCode().value()).isEqualTo(200);
    assertThat(commitment(sku)).as("after a repeat").isEqualTo(commitment);
    assertThat(payloads(sku)).as("a repeat stores nothing").hasSameSizeAs(payloads);
  }

  @Test
  void everySkuOpeningAtOneInstantWithAPrequeueIsInOneDraw() {
    String scheduled = register("s", null);
    assertThat(schedule(scheduled, opensAt, 30).getStatusCode().value()).isEqualTo(200);
    String registered =
        register(
            "r", "{\"opensAt\": \"%s\", \"prequeueSeconds\": 300}".formatted(opensAt.toString()));
    String later = register("l", null);
    Instant otherOpening = opensAt.plusMillis(1);
    assertThat(schedule(later, otherOpening, 30).getStatusCode().value()).isEqualTo(200);

    String commitment = commitment(scheduled);
    assertThat(commitment(registered))
        .as("registered with the same opening, another pre-queue length")
        .isEqualTo(commitment);
    assertThat(commitment(later)).as("a millisecond later: another draw").isNotEqualTo(commitment);
    assertThat(seed(opensAt)).isNotEqualTo(seed(otherOpening));
  }

  @Test
  void aRescheduledSaleIsInTheDrawOfItsNewOpeningAndAnOpeningsCommitmentNeverChanges() {
    String sku = register("m", null);
    Instant second = opensAt.plusSeconds(3600);
    schedule(sku, opensAt, 60);
    String first = commitment(sku);
    schedule(sku, second, 60);
    String moved = commitment(sku);
    schedule(sku, opensAt, 120);
    assertThat(moved).isNotEqualTo(first);
    assertThat(commitment(sku)).as("back at the first opening").isEqualTo(first);
    assertThat(seed(second)).isNotNull();
  }

  @Test
  void aSaleWithoutAPrequeueHasNoDrawAndTheDrawIsForReaders() {
    String plain = register("p", NONE);
    String noPrequeue = register("n", null);
    assertThat(schedule(noPrequeue, opensAt, 0).getStatusCode().value()).isEqualTo(200);
    String drawn = register("d", null);
    schedule(drawn, opensAt, 60);

    for (String sku : List.of(plain, noPrequeue)) {
      ResponseEntity<JsonNode> none = http.get("/api/skus/" + sku + "/draw");
      assertThat(none.getStatusCode().value()).isEqualTo(404);
      assertThat(none.getBody().get("type").asString()).endsWith("/no-draw");
      assertThat(none.getBody().get("skuId").asString()).isEqualTo(sku);
    }
    ResponseEntity<JsonNode> unknown = http.get("/api/skus/unknown-" + run + "/draw");
    assertThat(unknown.getStatusCode().value()).isEqualTo(404);
    assertThat(unknown.getBody().get("type").asString()).endsWith("/unknown-sku");

    String path = "/api/skus/" + drawn + "/draw";
    assertThat(http.withToken(TestTokens.withRoles("reader")).get(path).getStatusCode().value())
        .isEqualTo(200);
    assertThat(http.withToken(TestTokens.withRoles("client")).get(path).getStatusCode().value())
        .isEqualTo(403);
    assertThat(http.withoutToken().get(path).getStatusCode().value()).isEqualTo(401);
  }

  /**
   * A SKU registered with {@code sale}; {@code null}: with a sale that opens in a month, no
   * pre-queue (a SKU with no schedule is open from its registration, and can no longer get one).
   */
  private String register(String name, String sale) {
    String sku = "draw-" + name + "-" + run;
    String window =
        sale != null ? sale : "{\"opensAt\": \"%s\"}".formatted(opensAt.plus(30, ChronoUnit.DAYS));
    String body =
        window.equals(NONE)
            ? "{\"initialStock\": 10}"
            : "{\"initialStock\": 10, \"sale\": %s}".formatted(window);
    assertThat(http.status(HttpMethod.PUT, "/api/skus/" + sku, body)).isEqualTo(201);
    return sku;
  }

  private ResponseEntity<JsonNode> schedule(String sku, Instant at, int prequeueSeconds) {
    return http.send(
        HttpMethod.PUT,
        "/api/skus/" + sku + "/sale",
        "{\"opensAt\": \"%s\", \"prequeueSeconds\": %d}".formatted(at, prequeueSeconds));
  }

  private String commitment(String sku) {
    ResponseEntity<JsonNode> draw = http.get("/api/skus/" + sku + "/draw");
    assertThat(draw.getStatusCode().value()).as(draw.toString()).isEqualTo(200);
    return draw.getBody().get("drawCommitment").asString();
  }

  private String seed(Instant at) {
    return jdbc.queryForObject(
        "select seed from draw_seed where opens_at = ?", String.class, at.toEpochMilli());
  }

  private List<String> payloads(String sku) {
    return jdbc.query(
        "select payload from domain_event_entry where aggregate_identifier = ?"
            + " order by sequence_number",
        (row, n) -> new String(row.getBytes(1), StandardCharsets.UTF_8),
        SkuEvent.streamId(sku));
  }
}
