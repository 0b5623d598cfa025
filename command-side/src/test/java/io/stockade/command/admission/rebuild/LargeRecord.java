package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.axonframework.config.Configuration;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.messaging.MetaData;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A record far larger than a flash sale's HTTP tests would build, appended straight to the event
 * store in bulk, and what the gate must hold once rebuilt from it:
 *
 * <ul>
 *   <li>one SKU with 100,000 reservations of distinct users (1 to 3 units; 1,000 of them confirmed,
 *       whose buyers stay holders, and 500 released) and 10,000 replenishments;
 *   <li>1,000 SKUs with 100 live reservations each, of 40 users who hold 2 or 3 units each, under a
 *       per-user limit of 5.
 * </ul>
 */
public final class LargeRecord {

  static final int HOT_RESERVATIONS = 100_000;
  static final int CONFIRMED = 1_000;
  static final int RELEASED = 500;
  static final int REPLENISHMENTS = 10_000;
  static final int SKUS = 1_000;
  static final int PER_SKU = 100;
  static final int HOT_STOCK = 250_000;
  static final int SKU_STOCK = 150;
  static final int LIMIT = 5;
  static final int ADJUSTED_BY = 10;
  static final int LIMITED_TO = 3;

  private static final int BATCH = 5_000;
  private static final int ROWS_PER_STATEMENT = 500;
  private static final String ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?)";

  final String hot;
  final List<String> skus = new ArrayList<>();

  /** SKUs changed since the record was built (by reservations of a test): not checked. */
  final Set<String> touched = new HashSet<>();

  final Map<String, Long> hotHolders = new HashMap<>();
  long hotAvailable;
  long hotReserved;
  long hotSold;
  int events;

  private final String run;
  private final Instant now = Instant.now();
  private long sequence;

  private LargeRecord(String run) {
    this.run = run;
    this.hot = "hot-" + run;
    for (int k = 0; k < SKUS; k++) {
      skus.add("s-" + run + "-" + k);
    }
  }

  /**
   * Inserts the record's rows in bulk, each payload serialized by the service's event serializer as
   * Axon stores it: 500 rows a statement, 10 statements a transaction.
   */
  static LargeRecord append(ApplicationContext service, String run) {
    LargeRecord record = new LargeRecord(run);
    Serializer serializer = service.getBean(Configuration.class).eventSerializer();
    byte[] metaData = serializer.serialize(MetaData.emptyInstance(), byte[].class).getData();
    JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
    TransactionTemplate transactions =
        new TransactionTemplate(service.getBean(PlatformTransactionManager.class));
    String timestamp = DateTimeFormatter.ISO_INSTANT.format(record.now);
    List<Object[]> rows = new ArrayList<>(BATCH);
    Runnable flush =
        () -> {
          List<Object[]> batch = List.copyOf(rows);
          rows.clear();
          transactions.executeWithoutResult(
              status -> {
                for (int from = 0; from < batch.size(); from += ROWS_PER_STATEMENT) {
                  List<Object[]> part =
                      batch.subList(from, Math.min(from + ROWS_PER_STATEMENT, batch.size()));
                  jdbc.update(
                      "insert into domain_event_entry (aggregate_identifier, sequence_number,"
                          + " type, event_identifier, meta_data, payload, payload_revision,"
                          + " payload_type, time_stamp) values "
                          + String.join(",", Collections.nCopies(part.size(), ROW)),
                      part.stream().flatMap(Arrays::stream).toArray());
                }
              });
        };
    record.generate(
        event -> {
          SerializedObject<byte[]> payload = serializer.serialize(event.getPayload(), byte[].class);
          rows.add(
              new Object[] {
                event.getAggregateIdentifier(),
                event.getSequenceNumber(),
                event.getType(),
                UUID.randomUUID().toString(),
                metaData,
                payload.getData(),
                payload.getType().getRevision(),
                payload.getType().getName(),
                timestamp
              });
          if (rows.size() == BATCH) {
            flush.run();
          }
        });
    if (!rows.isEmpty()) {
      flush.run();
    }
    return record;
  }

  private void generate(java.util.function.Consumer<DomainEventMessage<?>> out) {
    hotAvailable = HOT_STOCK;
    out.accept(sku(hot, 0, new SkuRegistered(hot, HOT_STOCK, null, 1)));
    for (int r = 0; r < REPLENISHMENTS; r++) {
      out.accept(sku(hot, r + 1, new StockReplenished(hot, replenishment(r), 2)));
      hotAvailable += 2;
    }
    for (int i = 0; i < HOT_RESERVATIONS; i++) {
      int units = 1 + i % 3;
      ReservationLine line = new ReservationLine(hot, units);
      out.accept(reserved(hotReservation(i), hotUser(i), line));
      hotAvailable -= units;
      if (i < CONFIRMED) {
        out.accept(
            reservation(
                hotReservation(i),
                1,
                new StockConfirmed(hotReservation(i), hotUser(i), List.of(line), now)));
        hotSold += units;
        hotHolders.put(hotUser(i), (long) units);
      } else if (i < CONFIRMED + RELEASED) {
        out.accept(
            reservation(
                hotReservation(i),
                1,
                new StockReleased(hotReservation(i), hotUser(i), List.of(line), "CANCELLED", now)));
        hotAvailable += units;
      } else {
        hotReserved += units;
        hotHolders.put(hotUser(i), (long) units);
      }
    }
    for (int k = 0; k < SKUS; k++) {
      String sku = skus.get(k);
      out.accept(sku(sku, 0, new SkuRegistered(sku, SKU_STOCK, LIMIT, 1)));
      Sale sale = sale(k);
      if (sale == Sale.SCHEDULED) {
        // Registered with its sale: open since an hour ago, until tomorrow.
        out.accept(sku(sku, 1, new SaleScheduled(sku, opensAt(), closesAt(), 0)));
      }
      for (int j = 0; j < PER_SKU; j++) {
        out.accept(reserved(sku + "-r" + j, skuUser(j), new ReservationLine(sku, 1)));
      }
      switch (sale) {
        case PAUSED -> out.accept(sku(sku, 1, new SalePaused(sku, "price error")));
        case ADJUSTED ->
            out.accept(
                sku(
                    sku,
                    1,
                    new StockAdjusted(
                        sku, adjustment(k), -ADJUSTED_BY, AdjustmentReason.DAMAGED, "pallet 3")));
        case LIMITED -> out.accept(sku(sku, 1, new PurchaseLimitChanged(sku, LIMITED_TO)));
        case RESUMED -> {
          out.accept(sku(sku, 1, new SalePaused(sku, null)));
          out.accept(sku(sku, 2, new SaleResumed(sku)));
        }
        default -> {}
      }
    }
  }

  /**
   * What the record does with the sale of each of the 1,000 SKUs: one in ten of each kind below,
   * none of the first three (which the tests reserve).
   */
  enum Sale {
    AS_REGISTERED,
    PAUSED,
    SCHEDULED,
    ADJUSTED,
    LIMITED,
    RESUMED
  }

  static Sale sale(int k) {
    return k < 3
        ? Sale.AS_REGISTERED
        : switch (k % 10) {
          case 3 -> Sale.PAUSED;
          case 4 -> Sale.SCHEDULED;
          case 5 -> Sale.ADJUSTED;
          case 6 -> Sale.LIMITED;
          case 7 -> Sale.RESUMED;
          default -> Sale.AS_REGISTERED;
        };
  }

  Instant opensAt() {
    return now.minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
  }

  Instant closesAt() {
    return now.plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.MILLIS);
  }

  String adjustment(int k) {
    return "A-" + run + "-" + k;
  }

  /**
   * Closes the services, then drops their database (of the test's own): the next run starts from an
   * empty record.
   */
  public static void dropDatabase(
      List<? extends ConfigurableApplicationContext> services, String name) throws SQLException {
    if (services.isEmpty()) {
      return;
    }
    Environment environment = services.get(0).getEnvironment();
    String url = environment.getProperty("spring.datasource.url");
    String user = environment.getProperty("spring.datasource.username");
    String password = environment.getProperty("spring.datasource.password");
    services.forEach(ConfigurableApplicationContext::close);
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute("drop database if exists `" + name + "`");
    }
  }

  static String hotUser(int i) {
    return "h-" + i;
  }

  String hotReservation(int i) {
    return "H-" + run + "-" + i;
  }

  static String skuUser(int j) {
    return "su-" + (j % 40);
  }

  String replenishment(int r) {
    return "R-" + run + "-" + r;
  }

  /** Units each of the 40 users holds of one of the 1,000 SKUs: 3 for the first 20, else 2. */
  static long heldOfSku(int user) {
    return user < PER_SKU % 40 ? 3 : 2;
  }

  /** Asserts that the gate holds what the record says, to every holder's units. */
  void assertGate(StringRedisTemplate redis, GateLayout layout) {
    assertThat(redis.opsForHash().entries(layout.counters(hot)))
        .as("the hot SKU's counters")
        .containsEntry("available", String.valueOf(hotAvailable))
        .containsEntry("reserved", String.valueOf(hotReserved))
        .containsEntry("sold", String.valueOf(hotSold))
        .containsEntry("limit", "-1");
    Map<Object, Object> holders = redis.opsForHash().entries(layout.holders(hot));
    Map<String, Long> written = new HashMap<>();
    holders.forEach((user, units) -> written.put((String) user, Long.parseLong((String) units)));
    assertThat(written).as("the hot SKU's holders").isEqualTo(hotHolders);
    Map<Object, Object> replenishments = redis.opsForHash().entries(layout.replenishments(hot));
    assertThat(replenishments).hasSize(REPLENISHMENTS);
    for (int r = 0; r < REPLENISHMENTS; r++) {
      assertThat(replenishments.get(replenishment(r))).isEqualTo("2");
    }

    Map<String, String> expectedHolders = new HashMap<>();
    for (int user = 0; user < 40; user++) {
      expectedHolders.put(skuUser(user), String.valueOf(heldOfSku(user)));
    }
    for (int k = 0; k < SKUS; k++) {
      String sku = skus.get(k);
      if (touched.contains(sku)) {
        continue;
      }
      Sale sale = sale(k);
      Map<Object, Object> counters = redis.opsForHash().entries(layout.counters(sku));
      assertThat(counters)
          .as("counters of %s", sku)
          .containsEntry(
              "available",
              String.valueOf(SKU_STOCK - PER_SKU - (sale == Sale.ADJUSTED ? ADJUSTED_BY : 0)))
          .containsEntry("reserved", String.valueOf(PER_SKU))
          .containsEntry("sold", "0")
          .containsEntry("limit", String.valueOf(sale == Sale.LIMITED ? LIMITED_TO : LIMIT));
      switch (sale) {
        case PAUSED ->
            assertThat(counters)
                .as("%s paused", sku)
                .containsEntry("paused", "1")
                .containsEntry("pauseVersion", "1");
        case RESUMED ->
            assertThat(counters)
                .as("%s resumed", sku)
                .containsEntry("paused", "0")
                .containsEntry("pauseVersion", "2");
        case SCHEDULED ->
            assertThat(counters)
                .as("%s scheduled", sku)
                .containsEntry("opensAt", String.valueOf(opensAt().toEpochMilli()))
                .containsEntry("closesAt", String.valueOf(closesAt().toEpochMilli()))
                .containsEntry("scheduleVersion", "1");
        case LIMITED -> assertThat(counters).containsEntry("limitVersion", "1");
        case ADJUSTED ->
            assertThat(redis.opsForHash().entries(layout.of(sku).adjustments(sku)))
                .as("%s's adjustment, recorded once", sku)
                .containsExactly(
                    Map.entry(adjustment(k), -ADJUSTED_BY + " " + ADJUSTED_BY + " RECORDED"));
        default -> {}
      }
      if (sale != Sale.PAUSED && sale != Sale.RESUMED) {
        assertThat(counters).as("%s never paused", sku).doesNotContainKey("paused");
      }
      if (sale != Sale.SCHEDULED) {
        assertThat(counters).as("%s without a window", sku).doesNotContainKey("opensAt");
      }
      assertThat(redis.opsForHash().entries(layout.holders(sku)))
          .as("holders of %s", sku)
          .isEqualTo(new HashMap<Object, Object>(expectedHolders));
    }

    assertThat(intent(redis, layout, hotReservation(0), hot)).containsEntry("state", "CONFIRMED");
    assertThat(intent(redis, layout, hotReservation(CONFIRMED), hot))
        .containsEntry("state", "RELEASED")
        .containsEntry("reason", "CANCELLED");
    int last = HOT_RESERVATIONS - 1;
    assertThat(intent(redis, layout, hotReservation(last), hot))
        .containsEntry("state", "RESERVED")
        .containsEntry("user", hotUser(last))
        .containsEntry("lines", hot + " " + (1 + last % 3));
    String sku = skus.get(SKUS - 1);
    assertThat(intent(redis, layout, sku + "-r" + (PER_SKU - 1), sku))
        .containsEntry("state", "RESERVED")
        .containsEntry("lines", sku + " 1");
    long intents = GateServers.keys(redis, "stockade:{*}:reservation:*-" + run + "-*").size();
    assertThat(intents)
        .as("an intent for every reservation of the record")
        .isEqualTo(HOT_RESERVATIONS + (long) SKUS * PER_SKU);
  }

  private static Map<Object, Object> intent(
      StringRedisTemplate redis, GateLayout layout, String reservationId, String sku) {
    return redis.opsForHash().entries(layout.of(sku).intent(reservationId));
  }

  private DomainEventMessage<?> reserved(String id, String user, ReservationLine line) {
    sequence += GateLayout.STRIDE;
    return reservation(
        id,
        0,
        new StockReserved(
            id,
            user,
            List.of(line),
            now.minusSeconds(60),
            now.plus(Duration.ofDays(1)),
            sequence,
            1));
  }

  private DomainEventMessage<?> reservation(String id, long sequenceNumber, Object payload) {
    events++;
    return new GenericDomainEventMessage<>("Reservation", id, sequenceNumber, payload);
  }

  private DomainEventMessage<?> sku(String id, long sequenceNumber, Object payload) {
    events++;
    return new GenericDomainEventMessage<>("Sku", id, sequenceNumber, payload);
  }
}
