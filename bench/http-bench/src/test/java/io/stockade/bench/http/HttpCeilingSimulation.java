package io.stockade.bench.http;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.core.Simulation;
import java.util.Map;

/**
 * The HTTP ceiling: the same users and phases against the service's liveness probe, which answers
 * from memory (no Redis, no database). What the service, its HTTP stack and this client reach on
 * the machine when the request does no work.
 */
public class HttpCeilingSimulation extends Simulation {

  private static final String PATH = "/actuator/health/liveness";

  private final BenchParameters parameters = BenchParameters.fromEnvironment();
  private final Measurement warmUp = new Measurement();
  private final Measurement ceiling = new Measurement();

  {
    parameters.print("http-ceiling", Map.of("path", PATH));
    setUp(
            scenario("HTTP ceiling")
                .exec(
                    ClosedLoop.warmUpThenMeasure(
                        parameters, "liveness", name -> http(name).get(PATH), warmUp, ceiling, 200))
                .injectOpen(atOnceUsers(parameters.users())))
        .protocols(http.baseUrl(parameters.baseUrl()));
  }

  @Override
  public void after() {
    ceiling.print("http-ceiling");
  }
}
