package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A replay rebuilds read models identical, row for row, to the ones built event by event, after a
 * seeded random workload (the seed is printed; {@code -Dstockade.test.seed=N} replays it).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReplayIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void aReplayRebuildsReadModelsIdenticalToTheIncrementalOnes() {
    long seed = Long.getLong("stockade.test.seed", System.nanoTime());
    System.out.println(
        "ReplayIntegrationTest seed: " + seed + " (-Dstockade.test.seed=" + seed + ")");
    Random random = new Random(seed);
    String run = UUID.randomUUID().toString().substring(0, 8);
    ApiClient http = new ApiClient(port);
    Instant t0 = Instant.now().minusSeconds(3600);

    List<String> skus = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String sku = "rp-" + run + "-" + i;
      skus.add(sku);
      append(sku, 0, new SkuRegistered(sku, 1000, random.nextBoolean() ? null : 5), t0);
    }
    String last = null;
    for (int r = 0; r < 150; r++) {
      String id = "R-" + run + "-" + r;
      Instant at = t0.plusMillis(1000L * r);
      List<ReservationLine> lines = new ArrayList<>();
      for (String sku : skus) {
        if (lines.isEmpty() || random.nextInt(3) == 0) {
          lines.add(new ReservationLine(sku, 1 + random.nextInt(4)));
        }
      }
      int kind = random.nextInt(10);
      if (kind == 0) {
        append(id, 0, new ReservationAbandoned(id, "u-" + r, lines, r, at), at);
        continue;
      }
      Instant expiresAt = at.plusSeconds(900);
      append(id, 0, new StockReserved(id, "u-" + r, lines, at, expiresAt, r, 1), at);
      long sequence = 1;
      // Some holds are extended, once or twice, before they end (or while they still run).
      for (int extensions = random.nextInt(4) - 1; extensions > 0; extensions--) {
        Instant extendedAt = at.plusMillis(100L * sequence);
        expiresAt = expiresAt.plusSeconds(1 + random.nextInt(600));
        append(
            id,
            sequence++,
            new ReservationExtended(id, "u-" + r, expiresAt, extendedAt),
            extendedAt);
      }
      Instant endedAt = at.plusMillis(500);
      if (kind < 3) {
        append(id, sequence, new StockConfirmed(id, "u-" + r, lines, endedAt), endedAt);
      } else if (kind < 5) {
        confirmInPart(random, id, "u-" + r, sequence, lines, endedAt);
      } else if (kind < 8) {
        append(
            id,
            sequence,
            new StockReleased(
                id, "u-" + r, lines, random.nextBoolean() ? "CANCELLED" : "EXPIRED", endedAt),
            endedAt);
      }
      if (random.nextInt(20) == 0) {
        String sku = skus.get(random.nextInt(skus.size()));
        append(sku, 1 + r, new StockReplenished(sku, "RP-" + r, 1 + random.nextInt(50)), at);
      }
      if (r % 6 == 5) {
        // The sale's changes, each kind five times: a window, a pause, a resume, a limit, an
        // adjustment.
        String sku = skus.get(random.nextInt(skus.size()));
        append(sku, 1_000 + r, saleChange(random, (r / 6) % 5, sku, r, at), at);
      }
      last = id;
    }
    queued(random, run, skus, t0);
    String lastId = last;
    long head = head();
    await().atMost(Duration.ofSeconds(120)).until(() -> caughtUp(head) && visible(http, lastId));
    Map<String, List<Map<String, Object>>> incremental = snapshot(run);
    assertThat(incremental.get("reservation_view")).isNotEmpty();
    assertThat(incremental.get("stock_ledger"))
        .as("the workload changes the sales")
        .anyMatch(row -> "SaleScheduled".equals(row.get("event_type")))
        .anyMatch(row -> "SalePaused".equals(row.get("event_type")))
        .anyMatch(row -> "PurchaseLimitChanged".equals(row.get("event_type")))
        .anyMatch(row -> "StockAdjusted".equals(row.get("event_type")));
    assertThat(incremental.get("reservation_view"))
        .as("the workload holds partial confirmations")
        .anyMatch(
            row ->
                "CONFIRMED".equals(row.get("status"))
                    && "NOT_CONFIRMED".equals(row.get("release_reason")));
    assertThat(incremental.get("reservation_view"))
        .as("the workload holds queued reservations, refused and admitted ones")
        .anyMatch(row -> "QUEUED".equals(row.get("status")))
        .anyMatch(row -> "REFUSED".equals(row.get("status")));
    assertThat(incremental.get("sku_queue")).isNotEmpty();
    assertThat(
            jdbc.queryForObject(
                "select count(*) from domain_event_entry where aggregate_identifier like ?"
                    + " and payload_type = ?",
                Long.class,
                "reservation:R-" + run + "-%",
                ReservationExtended.class.getName()))
        .as("and extensions")
        .isPositive();
    // Damage the read models: only a rebuild from the events brings them back.
    jdbc.update("update stock_level set reserved = reserved + 100 where sku_id = ?", skus.get(0));
    jdbc.update("delete from stock_ledger where sku_id = ?", skus.get(1));
    jdbc.update("delete from reservation_view where reservation_id = ?", lastId);
    assertThat(snapshot(run)).isNotEqualTo(incremental);

    ResponseEntity<JsonNode> started = http.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    JsonNode done =
        await()
            .atMost(Duration.ofSeconds(180))
            .until(
                () -> http.get("/api/replays/" + replayId).getBody(),
                replay -> !"RUNNING".equals(replay.get("status").asString()));

    assertThat(done.get("status").asString()).isEqualTo("DONE");
    assertThat(done.get("percent").asInt()).isEqualTo(100);
    assertThat(done.get("processed").asLong()).isEqualTo(done.get("total").asLong());
    assertThat(done.get("total").asLong()).isGreaterThanOrEqualTo(head);
    Map<String, List<Map<String, Object>>> replayed = snapshot(run);
    for (String table : incremental.keySet()) {
      assertThat(replayed.get(table)).as(table).isEqualTo(incremental.get(table));
    }
    assertThat(http.get("/api/stock/" + skus.get(0)).getStatusCode().value()).isEqualTo(200);
    assertThat(http.get("/api/replays/unknown-" + run).getStatusCode().value()).isEqualTo(404);
  }

  /**
   * A pre-queue's reservations: some still queued, some refused by the draw, some admitted (their
   * {@code StockReserved} and {@code ReservationDrawn} in one transaction, in either order), of
   * those some released later; and the draw's {@code DrawDecided}.
   */
  private void queued(Random random, String run, List<String> skus, Instant t0) {
    Instant opensAt = t0.plusSeconds(1800);
    List<String> ids = new ArrayList<>();
    List<List<ReservationLine>> linesOf = new ArrayList<>();
    for (int q = 0; q < 30; q++) {
      String id = "R-" + run + "-q" + q;
      Instant queuedAt = t0.plusMillis(700L * q);
      List<ReservationLine> lines = new ArrayList<>();
      for (String sku : skus) {
        if (lines.isEmpty() || random.nextInt(3) == 0) {
          lines.add(new ReservationLine(sku, 1 + random.nextInt(4)));
        }
      }
      ids.add(id);
      linesOf.add(lines);
      append(
          id,
          0,
          new ReservationQueued(id, "u-" + id, lines, 600_000, opensAt, "c0ffee", queuedAt),
          queuedAt);
    }
    String[] refusals = {"INSUFFICIENT_STOCK", "LIMIT_EXCEEDED", "SALE_CLOSED", "SALE_PAUSED"};
    for (int q = 0; q < ids.size(); q++) {
      String id = ids.get(q);
      List<ReservationLine> lines = linesOf.get(q);
      int kind = random.nextInt(4);
      long position = q;
      if (kind == 1) {
        append(
            id,
            1,
            new ReservationDrawn(
                id,
                opensAt,
                position,
                refusals[random.nextInt(refusals.length)],
                lines.get(0).skuId()),
            opensAt);
      } else if (kind > 1) {
        boolean drawnFirst = random.nextBoolean();
        Instant expiresAt = opensAt.plusSeconds(600);
        transaction.executeWithoutResult(
            status -> {
              if (drawnFirst) {
                append(
                    id, 1, new ReservationDrawn(id, opensAt, position, "ADMITTED", null), opensAt);
              }
              append(
                  id,
                  0,
                  new StockReserved(id, "u-" + id, lines, opensAt, expiresAt, position, 1),
                  opensAt);
              if (!drawnFirst) {
                append(
                    id, 1, new ReservationDrawn(id, opensAt, position, "ADMITTED", null), opensAt);
              }
            });
        if (kind == 3) {
          Instant releasedAt = opensAt.plusSeconds(5);
          append(
              id, 1, new StockReleased(id, "u-" + id, lines, "CANCELLED", releasedAt), releasedAt);
        }
      }
    }
    append(
        skus.get(0),
        2_000,
        new DrawDecided(skus.get(0), opensAt, "ab".repeat(32), 30, 15),
        opensAt);
  }

  /** An event of this kind (0 to 4) that changes a SKU's sale (or corrects its stock). */
  private static Object saleChange(Random random, int kind, String sku, int r, Instant at) {
    return switch (kind) {
      case 0 ->
          new SaleScheduled(
              sku,
              at.plusSeconds(random.nextInt(7200)),
              random.nextBoolean() ? null : at.plusSeconds(7200 + random.nextInt(7200)),
              random.nextInt(3) * 60);
      case 1 -> new SalePaused(sku, random.nextBoolean() ? null : "price error " + r);
      case 2 -> new SaleResumed(sku);
      case 3 -> new PurchaseLimitChanged(sku, random.nextBoolean() ? null : 1 + random.nextInt(9));
      default ->
          new StockAdjusted(
              sku,
              "A-" + r,
              random.nextBoolean() ? 1 + random.nextInt(20) : -1 - random.nextInt(5),
              AdjustmentReason.values()[random.nextInt(AdjustmentReason.values().length)],
              random.nextBoolean() ? null : "note " + r);
    };
  }

  /**
   * A confirmation of some of the reservation's units, as the command side stores it: the units
   * sold (each SKU with at least one), then in the same transaction a NOT_CONFIRMED release of
   * every other unit at the confirmation's time. A reservation of a single unit cannot be confirmed
   * in part: it is confirmed whole.
   */
  private void confirmInPart(
      Random random,
      String id,
      String userId,
      long sequence,
      List<ReservationLine> lines,
      Instant at) {
    int units = lines.stream().mapToInt(ReservationLine::quantity).sum();
    if (units == 1) {
      append(id, sequence, new StockConfirmed(id, userId, lines, at), at);
      return;
    }
    int[] sold = new int[lines.size()];
    for (int i = 0; i < sold.length; i++) {
      sold[i] = random.nextInt(lines.get(i).quantity() + 1);
    }
    // At least one unit sold, at least one given back.
    int total = Arrays.stream(sold).sum();
    if (total == 0) {
      sold[0] = 1;
    } else if (total == units) {
      sold[0]--;
    }
    List<ReservationLine> confirmed = new ArrayList<>();
    List<ReservationLine> givenBack = new ArrayList<>();
    for (int i = 0; i < sold.length; i++) {
      ReservationLine line = lines.get(i);
      if (sold[i] > 0) {
        confirmed.add(new ReservationLine(line.skuId(), sold[i]));
      }
      if (line.quantity() > sold[i]) {
        givenBack.add(new ReservationLine(line.skuId(), line.quantity() - sold[i]));
      }
    }
    transaction.executeWithoutResult(
        status -> {
          append(id, sequence, new StockConfirmed(id, userId, confirmed, at), at);
          append(
              id,
              sequence + 1,
              new StockReleased(id, userId, givenBack, StockReleased.NOT_CONFIRMED, at),
              at);
        });
  }

  private boolean visible(ApiClient http, String reservationId) {
    return http.get("/api/reservations/" + reservationId).getStatusCode().value() == 200;
  }

  /** Every segment of both projections has reached the head of the event store. */
  private boolean caughtUp(long head) {
    List<Map<String, Object>> rows =
        jdbc.queryForList(
            "select processor_name, token from token_entry where processor_name in"
                + " ('stock-projection', 'reservation-projection')");
    // Every segment of both processors (however many segments the database has for them).
    return rows.stream().map(row -> row.get("processor_name")).distinct().count() == 2
        && rows.stream().allMatch(row -> position(new String((byte[]) row.get("token"))) >= head);
  }

  /** The index of a GapAwareTrackingToken serialized as JSON. */
  private static long position(String token) {
    int at = token.indexOf("\"index\":");
    if (at < 0) {
      return -1;
    }
    int end = at + 8;
    while (end < token.length()
        && (Character.isDigit(token.charAt(end)) || token.charAt(end) == '-')) {
      end++;
    }
    return Long.parseLong(token.substring(at + 8, end));
  }

  private long head() {
    return jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
  }

  /**
   * This run's rows. (Other tests of the suite also write rows straight through the projections'
   * handlers, with no event behind them: a replay rightly drops those.)
   */
  private Map<String, List<Map<String, Object>>> snapshot(String run) {
    return Map.of(
        "stock_level",
        jdbc.queryForList(
            "select * from stock_level where sku_id like ? order by sku_id", "rp-" + run + "-%"),
        "stock_ledger",
        jdbc.queryForList(
            "select * from stock_ledger where sku_id like ? order by sku_id, event_id",
            "rp-" + run + "-%"),
        "reservation_view",
        jdbc.queryForList(
            "select * from reservation_view where reservation_id like ? order by reservation_id",
            "R-" + run + "-%"),
        "sku_queue",
        jdbc.queryForList(
            "select * from sku_queue where reservation_id like ? order by sku_id, reservation_id",
            "R-" + run + "-%"));
  }

  private void append(String aggregateId, long sequence, Object payload, Instant at) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload, at);
  }
}
