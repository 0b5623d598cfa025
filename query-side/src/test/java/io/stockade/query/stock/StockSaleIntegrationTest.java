package io.stockade.query.stock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The stock view carries each SKU's sale as its events set it (window, pause, limit; adjustments in
 * the numbers), its state computed by the query side's clock; the SKU's audit shows those events;
 * {@code GET /api/sales} lists every SKU, busiest first, in pages. Against a real database, events
 * appended as the command side appends them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StockSaleIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;

  private ApiClient http;
  private String run;
  private Instant now;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
    now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
  }

  @Test
  void aScheduledSaleShowsItsWindowAndTheLimitFollowsItsChanges() {
    String sku = "sched-" + run;
    Instant opensAt = now.plus(2, ChronoUnit.HOURS);
    Instant closesAt = now.plus(4, ChronoUnit.HOURS);
    append(sku, 0, new SkuRegistered(sku, 100, 2));
    append(sku, 1, new SaleScheduled(sku, opensAt, closesAt, 0));

    JsonNode stock = awaitStock(sku, s -> s.get("sale").get("opensAt").isString());
    assertThat(stock.get("perUserLimit").asInt()).isEqualTo(2);
    JsonNode sale = stock.get("sale");
    assertThat(sale.get("state").asString()).isEqualTo("SCHEDULED");
    assertThat(Instant.parse(sale.get("opensAt").asString())).isEqualTo(opensAt);
    assertThat(Instant.parse(sale.get("closesAt").asString())).isEqualTo(closesAt);
    assertThat(sale.get("prequeueSeconds").asInt()).isZero();
    assertThat(sale.get("pausedReason").isNull()).isTrue();

    append(sku, 2, new PurchaseLimitChanged(sku, 5));
    awaitStock(sku, s -> s.get("perUserLimit").asInt() == 5);
    append(sku, 3, new PurchaseLimitChanged(sku, null));
    stock = awaitStock(sku, s -> s.get("perUserLimit").isNull());
    // The window is kept while only the limit changes.
    assertThat(Instant.parse(stock.get("sale").get("opensAt").asString())).isEqualTo(opensAt);

    // A pause before the opening: still not open by the window, the reason kept for later.
    append(sku, 4, new SalePaused(sku, "price error"));
    stock = awaitStock(sku, s -> s.get("sale").get("pausedReason").isString());
    assertThat(stock.get("sale").get("state").asString()).isEqualTo("SCHEDULED");
    assertThat(stock.get("sale").get("pausedReason").asString()).isEqualTo("price error");
    assertThat(stock.get("total").asLong()).isEqualTo(100);
    assertThat(stock.get("available").asLong()).isEqualTo(100);
  }

  @Test
  void aPauseAndAResumeOfAnOpenSaleShowAsTheirStates() {
    String sku = "pause-" + run;
    append(sku, 0, new SkuRegistered(sku, 100, null));
    JsonNode stock = awaitStock(sku, s -> true);
    assertThat(stock.get("sale").get("state").asString()).isEqualTo("OPEN");
    assertThat(stock.get("sale").get("opensAt").isNull()).isTrue();
    assertThat(stock.get("sale").get("closesAt").isNull()).isTrue();

    append(sku, 1, new SalePaused(sku, "price error"));
    stock = awaitStock(sku, s -> "PAUSED".equals(s.get("sale").get("state").asString()));
    assertThat(stock.get("sale").get("pausedReason").asString()).isEqualTo("price error");
    JsonNode both = http.get("/api/stock?skuIds=" + sku).getBody();
    assertThat(both.get(0).get("sale").get("state").asString()).isEqualTo("PAUSED");

    append(sku, 2, new SaleResumed(sku));
    stock = awaitStock(sku, s -> "OPEN".equals(s.get("sale").get("state").asString()));
    assertThat(stock.get("sale").get("pausedReason").isNull()).isTrue();

    append(sku, 3, new StockAdjusted(sku, "A-1", -3, AdjustmentReason.DAMAGED, "pallet 3"));
    stock = awaitStock(sku, s -> s.get("total").asLong() == 97);
    assertThat(stock.get("available").asLong()).isEqualTo(97);

    // The SKU's audit shows every event of its stream, the sale's changing no numbers.
    JsonNode audit = http.get("/api/audit/skus/" + sku).getBody();
    List<String> types = new ArrayList<>();
    for (JsonNode entry : audit.get("ledger")) {
      types.add(entry.get("type").asString());
      if (entry.get("type").asString().startsWith("Sale")) {
        assertThat(entry.get("change").get("total").asLong()).isZero();
        assertThat(entry.get("change").get("available").asLong()).isZero();
      }
    }
    assertThat(types)
        .containsExactly("SkuRegistered", "SalePaused", "SaleResumed", "StockAdjusted");
    assertThat(audit.get("total").asLong()).isEqualTo(97);
    assertThat(audit.get("totalEntries").asLong()).isEqualTo(4);
  }

  @Test
  void aSaleInItsPrequeueAndOneThatEndedShowTheirStates() {
    String queued = "queue-" + run;
    String ended = "ended-" + run;
    append(queued, 0, new SkuRegistered(queued, 10, null));
    append(queued, 1, new SaleScheduled(queued, now.plus(30, ChronoUnit.MINUTES), null, 3600));
    append(ended, 0, new SkuRegistered(ended, 10, null));
    append(
        ended,
        1,
        new SaleScheduled(
            ended, now.minus(2, ChronoUnit.HOURS), now.minus(1, ChronoUnit.HOURS), 0));

    JsonNode stock = awaitStock(queued, s -> s.get("sale").get("opensAt").isString());
    assertThat(stock.get("sale").get("state").asString()).isEqualTo("PREQUEUE");
    assertThat(stock.get("sale").get("prequeueSeconds").asInt()).isEqualTo(3600);
    stock = awaitStock(ended, s -> s.get("sale").get("opensAt").isString());
    assertThat(stock.get("sale").get("state").asString()).isEqualTo("CLOSED");
  }

  @Test
  void theListOfSalesHoldsEverySkuOnceBusiestFirst() {
    String busy = "busy-" + run;
    String middling = "mid-" + run;
    String quiet = "quiet-" + run;
    append(quiet, 0, new SkuRegistered(quiet, 10, null));
    append(middling, 0, new SkuRegistered(middling, 10, null));
    append(middling, 1, new SaleScheduled(middling, now.plus(1, ChronoUnit.HOURS), null, 0));
    append(busy, 0, new SkuRegistered(busy, 10_000, null));
    for (int i = 0; i < 30; i++) {
      String id = "O-" + run + "-" + i;
      append(
          id,
          0,
          new StockReserved(
              id,
              "u-" + i,
              List.of(new ReservationLine(busy, 1)),
              now,
              now.plusSeconds(900),
              i,
              1));
    }
    awaitStock(quiet, s -> true);
    awaitStock(middling, s -> s.get("sale").get("opensAt").isString());
    awaitStock(busy, s -> s.get("reserved").asLong() == 30);

    // Walked again if SKUs of other tests changed places while it went through the pages.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> listed = new ArrayList<>();
              long totalEntries = -1;
              for (int page = 0; ; page++) {
                ResponseEntity<JsonNode> answer = http.get("/api/sales?page=" + page + "&size=500");
                assertThat(answer.getStatusCode().value()).isEqualTo(200);
                JsonNode body = answer.getBody();
                assertThat(body.get("page").asInt()).isEqualTo(page);
                assertThat(body.get("size").asInt()).isEqualTo(500);
                totalEntries = body.get("totalEntries").asLong();
                for (JsonNode sku : body.get("skus")) {
                  listed.add(sku.get("skuId").asString());
                  assertThat(sku.get("sale").get("state").isString()).isTrue();
                }
                if (body.get("skus").size() < 500) {
                  break;
                }
              }
              assertThat(new HashSet<>(listed)).hasSize(listed.size());
              assertThat(listed).hasSize((int) totalEntries);
              assertThat(listed.indexOf(busy)).isNotNegative();
              assertThat(listed.indexOf(busy)).isLessThan(listed.indexOf(middling));
              assertThat(listed.indexOf(middling)).isLessThan(listed.indexOf(quiet));
            });

    JsonNode first = http.get("/api/sales?size=1").getBody();
    assertThat(first.get("skus")).hasSize(1);
    assertThat(first.get("page").asInt()).isZero();
  }

  private JsonNode awaitStock(String sku, Predicate<JsonNode> until) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              ResponseEntity<JsonNode> answer = http.get("/api/stock/" + sku);
              return answer.getStatusCode().value() == 200 ? answer.getBody() : null;
            },
            stock -> stock != null && until.test(stock));
  }

  private void append(String aggregateId, long sequence, Object payload) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload);
  }
}
