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
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Flash sale: one hot SKU with STOCK units, registered first; every user then asks for one unit
 * under a new reservation and a user id of its own, again and again. The users sell the stock out
 * first (until one of them is refused, at most SELL_OUT_LIMIT), then go through the warm-up and the
 * measured phase, which is the refusal path: 409 insufficient-stock, an expected outcome. At the
 * end the 201s of every phase must add up to STOCK exactly.
 */
public class FlashSaleSimulation extends Simulation {

  private static final Duration SELL_OUT_LIMIT = Duration.ofMinutes(2);

  private final BenchParameters parameters = BenchParameters.fromEnvironment();
  private final int stock = BenchParameters.number("STOCK", 500);
  private final String skuId = parameters.runId() + "-hot";
  private final AtomicLong reservations = new AtomicLong();
  private final AtomicBoolean soldOut = new AtomicBoolean();
  private final Measurement sellOut = new Measurement();
  private final Measurement warmUp = new Measurement();
  private final Measurement refusals = new Measurement();

  {
    parameters.print(
        "flash-sale",
        Map.of("stock", stock, "skuId", skuId, "sellOutLimitSeconds", SELL_OUT_LIMIT.toSeconds()));
    HttpProtocolBuilder protocol =
        http.baseUrl(parameters.baseUrl()).contentTypeHeader("application/json");
    ScenarioBuilder register =
        scenario("register the hot SKU")
            .exec(
                http("register SKU")
                    .put("/api/skus/" + skuId)
                    .header("Authorization", BenchParameters.bearer(parameters.adminToken()))
                    .body(StringBody("{\"initialStock\": " + stock + "}"))
                    .check(status().is(201)));
    Function<String, HttpRequestActionBuilder> request =
        name ->
            http(name)
                .post("/api/reservations")
                .header("Authorization", BenchParameters.bearer(parameters.clientToken()))
                .body(StringBody(this::reserve));
    ScenarioBuilder sale =
        scenario("flash sale")
            .exec(sellOut::start)
            .asLongAsDuring(session -> !soldOut.get(), SELL_OUT_LIMIT, false)
            .on(
                exec(ClosedLoop.checked(request.apply("reserve the hot SKU (sell-out)"), 201, 409))
                    .exec(sellOut::record)
                    .exec(this::noteRefusal))
            .exec(sellOut::stop)
            .exec(
                ClosedLoop.warmUpThenMeasure(
                    parameters, "reserve the hot SKU", request, warmUp, refusals, 201, 409));
    setUp(
            register
                .injectOpen(atOnceUsers(1))
                .andThen(sale.injectOpen(atOnceUsers(parameters.users()))))
        .protocols(protocol);
  }

  private Session noteRefusal(Session session) {
    if (session.contains(Measurement.STATUS) && session.getInt(Measurement.STATUS) == 409) {
      soldOut.set(true);
    }
    return session;
  }

  private String reserve(Session session) {
    long number = reservations.incrementAndGet();
    String id = parameters.runId() + "-fs-" + number;
    return "{\"reservationId\": \"%s\", \"userId\": \"u-%s\", \"lines\": [{\"skuId\": \"%s\", \"quantity\": 1}]}"
        .formatted(id, id, skuId);
  }

  @Override
  public void after() {
    refusals.print("flash-sale");
    sellOut.print("flash-sale-sell-out");
    long admitted = sellOut.count(201) + warmUp.count(201) + refusals.count(201);
    System.out.printf(
        "ADMITTED flash-sale %d of stock %d (sell-out %d, warm-up %d, measured %d): %s%n",
        admitted,
        stock,
        sellOut.count(201),
        warmUp.count(201),
        refusals.count(201),
        admitted == stock ? "exact" : "NOT EXACT");
    if (!soldOut.get()) {
      System.out.println(
          "WARNING flash-sale: no refusal within the sell-out limit: the measured phase is not the"
              + " refusal path");
    }
  }
}
