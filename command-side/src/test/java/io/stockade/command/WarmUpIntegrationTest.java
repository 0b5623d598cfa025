package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.platform.testing.ApiClient;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The warm-up before readiness, on a second command side started by the test against the suite's
 * Redis and database: it answers its own refusals through the whole stack while its readiness is
 * down (the component warmUp out of service), leaves no key, event or deadline behind, and its
 * tokens are refused once it is ready.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WarmUpIntegrationTest {

  private static final int REQUESTS = 300;

  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void warmsUpBeforeReadinessWithRefusalsThatChangeNothingAndItsTokensDieWithIt() {
    StoreSnapshot before = StoreSnapshot.take(redis, jdbc, "warm-up-");

    try (ConfigurableApplicationContext warmed =
        new SpringApplicationBuilder(CommandSideApplication.class, Witness.class)
            .run(
                "--server.port=0",
                "--stockade.warm-up.enabled=true",
                "--stockade.warm-up.max-requests=" + REQUESTS,
                "--stockade.warm-up.max-duration=60s",
                // Ended by the count alone, however quiet the JIT.
                "--stockade.warm-up.settled-compilation=0",
                "--stockade.expiry.polling-interval=1h")) {
      int port = Integer.parseInt(warmed.getEnvironment().getProperty("local.server.port"));
      ApiClient client = new ApiClient(port);
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> client.get("/actuator/health/readiness").getStatusCode().value() == 200);
      // Without the test's own readiness polls.
      List<Seen> seen =
          warmed.getBean(Witness.class).seen.stream()
              .filter(s -> !s.path().equals("/actuator/health/readiness"))
              .toList();
      List<Seen> reservations =
          seen.stream().filter(s -> s.path().equals("/api/reservations")).toList();
      List<Seen> probes =
          seen.stream().filter(s -> s.path().equals("/actuator/health/liveness")).toList();

      assertThat(seen).hasSize(REQUESTS);
      assertThat(reservations).hasSizeGreaterThan(REQUESTS / 3);
      assertThat(probes).hasSizeGreaterThan(REQUESTS / 3);
      assertThat(seen).allMatch(s -> s.readiness().equals(Status.OUT_OF_SERVICE));
      assertThat(reservations)
          .allMatch(s -> s.method().equals("POST") && (s.status() == 404 || s.status() == 503))
          .allMatch(s -> s.authorization() != null && s.authorization().startsWith("Bearer "));
      assertThat(probes).allMatch(s -> s.status() == 200 && s.authorization() == null);

      StoreSnapshot.take(redis, jdbc, "warm-up-").assertUnchanged(before, jdbc, "the warm-up");

      String warmUpToken = reservations.get(0).authorization().substring("Bearer ".length());
      String body =
          "{\"reservationId\":\"warm-up-after\",\"userId\":\"warm-up-after\","
              + "\"lines\":[{\"skuId\":\"warm-up-after\",\"quantity\":1}]}";
      assertThat(
              client
                  .withToken(warmUpToken)
                  .send(HttpMethod.POST, "/api/reservations", body)
                  .getStatusCode()
                  .value())
          .isEqualTo(401);
      assertThat(client.send(HttpMethod.POST, "/api/reservations", body).getStatusCode().value())
          .isEqualTo(404);
    }
  }

  /**
   * The warm-up ends once the JIT has settled, long before its count or its duration: here the
   * share allowed is more than the compilers can spend (1,000 times the window), so the first full
   * window of 2 s ends it.
   */
  @Test
  void endsOnceTheJitHasSettled() {
    try (ConfigurableApplicationContext warmed =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--stockade.warm-up.enabled=true",
                "--stockade.warm-up.max-requests=1000000000",
                "--stockade.warm-up.max-duration=120s",
                "--stockade.warm-up.settle-window=2s",
                "--stockade.warm-up.settled-compilation=1000",
                "--stockade.expiry.polling-interval=1h")) {
      Health warmUp = onceReady(warmed);
      assertThat(warmUp.getStatus()).isEqualTo(Status.UP);
      assertThat(warmUp.getDetails())
          .containsEntry("state", "DONE")
          .containsEntry("ended", "jit-settled");
      assertThat((Long) warmUp.getDetails().get("requests"))
          .isPositive()
          .isLessThan(1_000_000_000L);
    }
  }

  /**
   * An answer the warm-up does not expect (here every reservation answered 500 by a filter in front
   * of the service) stops it at once: readiness follows, its health says why, and no more requests
   * are sent than the few in flight.
   */
  @Test
  void anUnexpectedAnswerStopsItAndSaysSo() {
    try (ConfigurableApplicationContext warmed =
        new SpringApplicationBuilder(CommandSideApplication.class, Failing.class)
            .run(
                "--server.port=0",
                "--stockade.warm-up.enabled=true",
                "--stockade.warm-up.max-requests=1000000000",
                "--stockade.warm-up.max-duration=120s",
                "--stockade.warm-up.settled-compilation=0",
                "--stockade.expiry.polling-interval=1h")) {
      Health warmUp = onceReady(warmed);

      assertThat(warmUp.getStatus()).isEqualTo(Status.UP);
      assertThat(warmUp.getDetails())
          .containsEntry("state", "STOPPED")
          .containsEntry("ended", "unexpected-answer");
      assertThat(warmed.getBean(Failing.class).failed.get()).isBetween(1, 4);
    }
  }

  /** The warm-up's health once the instance reports ready (within 60 s). */
  private static Health onceReady(ConfigurableApplicationContext warmed) {
    int port = Integer.parseInt(warmed.getEnvironment().getProperty("local.server.port"));
    ApiClient client = new ApiClient(port);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.get("/actuator/health/readiness").getStatusCode().value() == 200);
    return warmed.getBean("warmUp", HealthIndicator.class).health();
  }

  /** Answers every reservation 500 (not component-scanned: no annotation). */
  static class Failing {

    final AtomicInteger failed = new AtomicInteger();

    @Bean
    FilterRegistrationBean<Filter> failingFilter() {
      Filter filter =
          (request, response, chain) -> {
            if (((HttpServletRequest) request).getRequestURI().equals("/api/reservations")) {
              failed.incrementAndGet();
              ((HttpServletResponse) response).setStatus(500);
              return;
            }
            chain.doFilter(request, response);
          };
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
      registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
      return registration;
    }
  }

  /** One request the service answered: what it was, with which token, when, and the status. */
  record Seen(String method, String path, String authorization, Status readiness, int status) {}

  /** Records every request of the instance it is part of (not component-scanned: no annotation). */
  static class Witness {

    final Queue<Seen> seen = new ConcurrentLinkedQueue<>();

    @Bean
    FilterRegistrationBean<Filter> witnessFilter(
        @Qualifier("warmUp") ObjectProvider<HealthIndicator> warmUp) {
      Filter filter =
          (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            Status readiness = warmUp.getObject().health().getStatus();
            chain.doFilter(request, response);
            seen.add(
                new Seen(
                    http.getMethod(),
                    http.getRequestURI(),
                    http.getHeader("Authorization"),
                    readiness,
                    ((HttpServletResponse) response).getStatus()));
          };
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
      registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
      return registration;
    }
  }
}
