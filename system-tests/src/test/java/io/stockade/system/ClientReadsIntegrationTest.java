package io.stockade.system;

import static io.stockade.system.StockadeClientIntegrationTest.eventually;
import static io.stockade.system.StockadeClientIntegrationTest.id;
import static io.stockade.system.StockadeClientIntegrationTest.problemOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.client.Adjustment;
import io.stockade.client.CommandClient;
import io.stockade.client.DecisionQuery;
import io.stockade.client.Draw;
import io.stockade.client.EventStream;
import io.stockade.client.FeedEvent;
import io.stockade.client.ProblemCode;
import io.stockade.client.QueryClient;
import io.stockade.client.Replenishment;
import io.stockade.client.ReservationLine;
import io.stockade.client.ReservationOutcome;
import io.stockade.client.ReservationRequest;
import io.stockade.client.RetryPolicy;
import io.stockade.client.SaleSchedule;
import io.stockade.client.SkuRegistration;
import io.stockade.client.SkuState;
import io.stockade.client.Stock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The client's other calls against the real services: a sale run through the admin's commands
 * (pause, resume, limit, adjustment, replenishment, schedule, draw), and every read of the query
 * side, the two streams of server-sent events and a replay. Each answer is read into the client's
 * types, so a member the services renamed or retyped fails here.
 */
@ExtendWith(SharedClientSystem.class)
class ClientReadsIntegrationTest {

  private static CommandClient admin;
  private static CommandClient client;
  private static QueryClient reader;
  private static QueryClient queryAdmin;

  @BeforeAll
  static void clients() {
    ClientSystem system = SharedClientSystem.system();
    admin = system.commands(RetryPolicy.DEFAULT, "admin");
    client = system.commands(RetryPolicy.DEFAULT, "client");
    reader = system.queries("reader");
    queryAdmin = system.queries("admin");
  }

  @Test
  void runsASaleThroughTheAdminsCommands() {
    String sku = id("sku-sale");
    admin.registerSku(sku, SkuRegistration.of(10));

    SkuState paused = admin.pauseSale(sku, "price error");
    assertThat(paused.sale().state()).isEqualTo("PAUSED");
    assertThat(paused.sale().pausedReason()).isEqualTo("price error");
    assertThat(
            problemOf(
                    () ->
                        client.reserve(
                            ReservationRequest.of(
                                id("S-1"), id("u-s1"), new ReservationLine(sku, 1))))
                .problemCode())
        .isEqualTo(ProblemCode.SALE_PAUSED);
    assertThat(admin.resumeSale(sku).sale().state()).isEqualTo("OPEN");

    assertThat(admin.changePurchaseLimit(sku, 1).perUserLimit()).isEqualTo(1L);
    SkuState adjusted =
        admin.adjustStock(
            sku, new Adjustment(id("A-1"), -2, Adjustment.Reason.DAMAGED, "pallet 3"));
    assertThat(List.of(adjusted.total(), adjusted.available())).containsExactly(8L, 8L);
    assertThat(
            problemOf(
                    () ->
                        admin.adjustStock(
                            sku, new Adjustment(id("A-1"), -3, Adjustment.Reason.DAMAGED, null)))
                .problemCode())
        .isEqualTo(ProblemCode.ADJUSTMENT_ID_REUSED);
    assertThat(admin.replenish(sku, new Replenishment(id("P-1"), 5)).totalStock()).isEqualTo(13);
    assertThat(admin.changePurchaseLimit(sku, null).perUserLimit()).isNull();
    assertThat(admin.sku(sku).total()).isEqualTo(13);

    assertThat(problemOf(() -> admin.draw(sku)).problemCode()).isEqualTo(ProblemCode.NO_DRAW);
    Instant opening = Instant.parse("2030-12-24T10:00:00Z");
    assertThat(
            problemOf(() -> admin.scheduleSale(sku, new SaleSchedule(opening, null, null)))
                .problemCode())
        .isEqualTo(ProblemCode.SALE_ALREADY_OPEN);

    String later = id("sku-later");
    admin.registerSku(later, SkuRegistration.of(5).withSale(new SaleSchedule(opening, null, 60)));
    SkuState rescheduled =
        admin.scheduleSale(
            later, new SaleSchedule(opening, Instant.parse("2030-12-24T12:00:00Z"), 60));
    assertThat(rescheduled.sale().state()).isEqualTo("SCHEDULED");
    assertThat(rescheduled.sale().closesAt()).isEqualTo("2030-12-24T12:00:00Z");
    Draw draw = admin.draw(later);
    assertThat(draw.drawCommitment()).hasSize(64);
    assertThat(draw.seed()).isNull();
    assertThat(draw.order()).isEmpty();

    // In a pre-queue (it opens in 30 minutes, queueing from an hour before): 202 QUEUED.
    String queued = id("sku-queued");
    Instant soon = Instant.now().plusSeconds(1800);
    admin.registerSku(queued, SkuRegistration.of(5).withSale(new SaleSchedule(soon, null, 3600)));
    ReservationOutcome waiting =
        client.reserve(
            ReservationRequest.of(id("W-1"), id("u-w1"), new ReservationLine(queued, 1)));
    assertThat(waiting.queued()).isTrue();
    assertThat(waiting.opensAt()).isEqualTo(admin.sku(queued).sale().opensAt());
    assertThat(waiting.drawCommitment()).isEqualTo(admin.draw(queued).drawCommitment());
    assertThat(admin.draw(queued).queued()).isEqualTo(1);
    assertThat(problemOf(() -> admin.sku(id("sku-none"))).problemCode())
        .isEqualTo(ProblemCode.UNKNOWN_SKU);
  }

  @Test
  void readsEveryViewOfTheQuerySide() {
    String sku = id("sku-reads");
    String user = id("u-reads");
    admin.registerSku(sku, SkuRegistration.of(4));
    client.reserve(ReservationRequest.of(id("V-1"), user, new ReservationLine(sku, 3)));
    client.extend(id("V-1"), 1200);
    client.release(id("V-1"), "CANCELLED");

    eventually()
        .untilAsserted(
            () -> assertThat(reader.reservation(id("V-1")).status()).isEqualTo("RELEASED"));
    assertThat(reader.reservation(id("V-1")).releaseReason()).isEqualTo("CANCELLED");
    assertThat(reader.reservationAudit(id("V-1")))
        .extracting(event -> event.type())
        .containsExactly("StockReserved", "ReservationExtended", "StockReleased");
    eventually()
        .until(() -> reader.stock(sku).reserved() == 0 && reader.stock(sku).available() == 4);
    assertThat(reader.stock(List.of(sku, id("sku-none"))))
        .extracting(Stock::skuId)
        .containsExactly(sku);
    assertThat(reader.sales(0, 500).skus()).extracting(Stock::skuId).contains(sku);
    var audit = reader.skuAudit(sku, null, 0, 50);
    assertThat(audit.ledger()).extracting(entry -> entry.reference()).contains(id("V-1"));
    assertThat(problemOf(() -> reader.stock(id("sku-none"))).problemCode())
        .isEqualTo(ProblemCode.UNKNOWN_SKU);

    eventually()
        .untilAsserted(
            () ->
                assertThat(reader.skuDecisions(sku, DecisionQuery.FIRST_PAGE).decisions())
                    .extracting(decision -> decision.reservationId())
                    .contains(id("V-1")));
    assertThat(reader.userDecisions(user, new DecisionQuery(null, null, 0, 10)).decisions())
        .extracting(decision -> decision.skuId())
        .containsOnly(sku);
    assertThat(reader.skuDecisionsAroundSellout(sku, null, null, 10).sellout()).isNull();
    assertThat(reader.decisionRates(1).seconds()).hasSize(60);
    assertThat(reader.gate().state()).isEqualTo("OPEN");
    var report = reader.reconciliation(true);
    assertThat(report.summary().skus()).isPositive();
    assertThat(reader.reconciliation(sku, false).skus())
        .extracting(check -> check.skuId())
        .containsExactly(sku);

    List<Stock> streamed = new CopyOnWriteArrayList<>();
    List<FeedEvent> fed = new CopyOnWriteArrayList<>();
    try (EventStream stock = reader.streamStock(sku, streamed::add);
        EventStream events = reader.streamEvents(0, fed::add)) {
      eventually().until(() -> !streamed.isEmpty() && !fed.isEmpty());
      assertThat(streamed.get(0).skuId()).isEqualTo(sku);
      assertThat(fed.get(0).position()).isPositive();
      assertThat(events.lastId()).isPresent();
      assertThat(stock.failure()).isEmpty();
    }
  }

  @Test
  void startsAReplayAndFollowsItToItsEnd() {
    String replayId = queryAdmin.startReplay().replayId();
    eventually().until(() -> !reader.replay(replayId).status().equals("RUNNING"));
    var replay = reader.replay(replayId);
    assertThat(replay.status()).isEqualTo("DONE");
    assertThat(replay.finishedAt()).isNotNull();
    assertThat(problemOf(() -> reader.replay("no-such-replay")).problemCode())
        .isEqualTo(ProblemCode.UNKNOWN_REPLAY);
  }
}
