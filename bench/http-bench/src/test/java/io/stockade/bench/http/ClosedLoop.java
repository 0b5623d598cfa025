package io.stockade.bench.http;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.util.function.Function;

/**
 * The load shape every HTTP workload shares: each of the run's users sends one request after the
 * other (a closed model), for the warm-up, then for the measured duration. A request that had begun
 * when its phase ended is still waited for and counted.
 */
final class ClosedLoop {

  private ClosedLoop() {}

  /**
   * The chain of one user.
   *
   * @param request the request, given its name in the report (one name per phase)
   * @param expected the statuses that are expected outcomes; any other is a failure
   */
  static ChainBuilder warmUpThenMeasure(
      BenchParameters parameters,
      String name,
      Function<String, HttpRequestActionBuilder> request,
      Measurement warmUp,
      Measurement measured,
      Integer... expected) {
    return exec(warmUp::start)
        .during(parameters.warmUp(), false)
        .on(exec(checked(request.apply(name + " (warm-up)"), expected)).exec(warmUp::record))
        .exec(warmUp::stop)
        .exec(measured::start)
        .during(parameters.duration(), false)
        .on(exec(checked(request.apply(name), expected)).exec(measured::record))
        .exec(measured::stop);
  }

  /** The request with the checks {@link Measurement#record} reads. */
  static HttpRequestActionBuilder checked(HttpRequestActionBuilder request, Integer... expected) {
    return request.check(
        responseTimeInMillis().saveAs(Measurement.LATENCY),
        status().in(expected).saveAs(Measurement.STATUS));
  }
}
