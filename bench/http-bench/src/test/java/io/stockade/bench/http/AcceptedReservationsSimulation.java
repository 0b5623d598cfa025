package io.stockade.bench.http;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sustained accepted reservations: SKUS SKUs with SKU_STOCK units each are registered first; then
 * every request reserves one unit of the next SKU in turn, under a new reservation and user, and
 * must be admitted (201).
 */
public class AcceptedReservationsSimulation extends Simulation {

  private static final String SKU_NUMBER = "skuNumber";

  private final BenchParameters parameters = BenchParameters.fromEnvironment();
  private final int skus = BenchParameters.number("SKUS", 1000);
  private final int skuStock = BenchParameters.number("SKU_STOCK", 1_000_000);
  private final AtomicLong registrations = new AtomicLong();
  private final AtomicLong reservations = new AtomicLong();
  private final Measurement warmUp = new Measurement();
  private final Measurement accepted = new Measurement();

  {
    parameters.print("accepted", Map.of("skus", skus, "skuStock", skuStock));
    HttpProtocolBuilder protocol =
        http.baseUrl(parameters.baseUrl()).contentTypeHeader("application/json");
    ScenarioBuilder register =
        scenario("register the SKUs")
            .exec(this::nextSku)
            .asLongAs(session -> session.getLong(SKU_NUMBER) < skus)
            .on(
                exec(http("register SKU")
                        .put(session -> "/api/skus/" + sku(session.getLong(SKU_NUMBER)))
                        .header("Authorization", BenchParameters.bearer(parameters.adminToken()))
                        .body(StringBody("{\"initialStock\": " + skuStock + "}"))
                        .check(status().is(201)))
                    .exec(this::nextSku));
    ScenarioBuilder reserve =
        scenario("accepted reservations")
            .exec(
                ClosedLoop.warmUpThenMeasure(
                    parameters,
                    "reserve one unit",
                    name ->
                        http(name)
                            .post("/api/reservations")
                            .header(
                                "Authorization", BenchParameters.bearer(parameters.clientToken()))
                            .body(StringBody(this::reserve)),
                    warmUp,
                    accepted,
                    201));
    setUp(
            register
                .injectOpen(atOnceUsers(Math.min(parameters.users(), skus)))
                .andThen(reserve.injectOpen(atOnceUsers(parameters.users()))))
        .protocols(protocol);
  }

  private Session nextSku(Session session) {
    return session.set(SKU_NUMBER, registrations.getAndIncrement());
  }

  private String sku(long number) {
    return parameters.runId() + "-sku-" + number;
  }

  private String reserve(Session session) {
    long number = reservations.getAndIncrement();
    String id = parameters.runId() + "-ok-" + number;
    return "{\"reservationId\": \"%s\", \"userId\": \"u-%s\", \"lines\": [{\"skuId\": \"%s\", \"quantity\": 1}]}"
        .formatted(id, id, sku(number % skus));
  }

  @Override
  public void after() {
    accepted.print("accepted");
  }
}
