package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.ApiClient;
import java.util.List;
import java.util.UUID;
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
 * A reservation and a SKU may have the same id: each aggregate type has its own namespace of
 * streams in the event store ({@code reservation:<id>}, {@code sku:<id>}), so neither can block,
 * break or be mistaken for the other.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StreamNamespacesHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String run;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void endingAnIdThatIsOnlyASkuIsAnUnknownReservation() {
    String sku = "X-" + run;
    assertThat(register(sku, 5)).isEqualTo(201);

    ResponseEntity<JsonNode> confirm = post("/api/reservations/" + sku + "/confirm");
    ResponseEntity<JsonNode> release = post("/api/reservations/" + sku + "/release");

    assertThat(confirm.getStatusCode().value()).isEqualTo(404);
    assertThat(confirm.getBody().get("type").asString()).endsWith("/unknown-reservation");
    assertThat(release.getStatusCode().value()).isEqualTo(404);
    assertThat(release.getBody().get("type").asString()).endsWith("/unknown-reservation");
    assertThat(streams(sku)).containsExactly("sku:" + sku);
  }

  @Test
  void aReservationDoesNotBlockTheSkuOfItsId() {
    String sku = "S-" + run;
    String id = "Y-" + run;
    assertThat(register(sku, 5)).isEqualTo(201);
    assertThat(reserve(id, sku)).isEqualTo(201);

    assertThat(register(id, 7)).as("a SKU named like the reservation").isEqualTo(201);
    assertThat(register(id, 7)).as("its repeat").isEqualTo(200);
    assertThat(reserve("Y2-" + run, id)).as("reserving the new SKU").isEqualTo(201);
    assertThat(post("/api/reservations/" + id + "/confirm").getStatusCode().value()).isEqualTo(200);
    assertThat(streams(id)).containsExactly("reservation:" + id, "sku:" + id);
  }

  @Test
  void aReservationMayHaveTheIdOfASku() {
    String sku = "X-" + run;
    assertThat(register(sku, 5)).isEqualTo(201);

    assertThat(reserve(sku, sku)).as("a reservation named like its SKU").isEqualTo(201);
    assertThat(reserve(sku, sku)).as("its retry").isEqualTo(200);
    assertThat(post("/api/reservations/" + sku + "/confirm").getStatusCode().value())
        .isEqualTo(200);
    assertThat(
            http.status(
                HttpMethod.POST,
                "/api/skus/" + sku + "/replenishments",
                "{\"replenishmentId\":\"R-1\",\"quantity\":3}"))
        .as("the SKU still takes replenishments")
        .isEqualTo(201);
    assertThat(types("reservation:" + sku)).containsExactly("StockReserved", "StockConfirmed");
    assertThat(types("sku:" + sku)).containsExactly("SkuRegistered", "StockReplenished");
  }

  private int register(String sku, int stock) {
    return http.status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + stock + "}");
  }

  private int reserve(String id, String sku) {
    return http.status(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\"u-"
            + run
            + "\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":1}]}");
  }

  private ResponseEntity<JsonNode> post(String path) {
    return http.send(HttpMethod.POST, path, null);
  }

  /** The streams in the event store whose identifier ends with this id, in order. */
  private List<String> streams(String id) {
    return jdbc.queryForList(
        "select distinct aggregate_identifier from domain_event_entry"
            + " where aggregate_identifier like ? order by aggregate_identifier",
        String.class,
        "%" + id);
  }

  /** The simple names of a stream's events, in order. */
  private List<String> types(String stream) {
    return jdbc
        .queryForList(
            "select payload_type from domain_event_entry where aggregate_identifier = ?"
                + " order by sequence_number",
            String.class,
            stream)
        .stream()
        .map(type -> type.substring(type.lastIndexOf('.') + 1))
        .toList();
  }
}
