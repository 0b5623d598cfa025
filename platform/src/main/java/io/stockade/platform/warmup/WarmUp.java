package io.stockade.platform.warmup;

import io.stockade.platform.security.WarmUpTokens;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Sends the service's own HTTP port the {@link WarmUpRequests} of every bean that declares some,
 * and the liveness probe's, once the application is ready (its gate open) and before it reports
 * ready: its health component {@code warmUp}, part of the readiness group, is out of service until
 * the warm-up has ended, so a load balancer sends nothing while it runs. It ends once the JIT has
 * settled (its compilers spent less than {@code settled-compilation} of the last {@code
 * settle-window} compiling: {@link CompilerSettling}), after {@code max-requests} answers or at
 * {@code max-duration}, whichever first, and at the first answer that is not the one expected (a
 * request that could have changed something is not sent again); whatever happens, its tokens are
 * refused from then on ({@link WarmUpTokens#close()}), before the component reports up. A service
 * whose requests are not ready within {@code max-duration} (its gate stays closed) is not warmed
 * up.
 */
final class WarmUp implements ApplicationListener<ApplicationReadyEvent>, HealthIndicator {

  private static final Logger log = LoggerFactory.getLogger(WarmUp.class);

  /** A new token after this many requests of one thread: the verification is trained too. */
  private static final int REQUESTS_PER_TOKEN = 250;

  /** How often the JIT's compiling time is sampled while the requests go out. */
  private static final long SAMPLE_MILLIS = 500;

  private final WarmUpProperties properties;
  private final WarmUpTokens tokens;
  private final List<WarmUpRequests> exercises;
  private final ApplicationContext context;
  private final Environment environment;
  private final AtomicLong answered = new AtomicLong();
  private volatile String state;

  /**
   * Why the requests stopped (jit-settled, max-requests, max-duration or unexpected-answer), once
   * they have.
   */
  private volatile String ended;

  WarmUp(
      WarmUpProperties properties,
      WarmUpTokens tokens,
      List<WarmUpRequests> exercises,
      ApplicationContext context,
      Environment environment) {
    this.properties = properties;
    this.tokens = tokens;
    this.state = properties.enabled() && tokens != null ? "PENDING" : "OFF";
    this.context = context;
    this.environment = environment;
    List<WarmUpRequests> all = new ArrayList<>(exercises);
    if (environment.getProperty("management.server.port") == null) {
      all.add(
          new Liveness(environment.getProperty("management.endpoints.web.base-path", "/actuator")));
    }
    this.exercises = List.copyOf(all);
  }

  /**
   * On a thread of its own: the listeners of this event (which open the gate) run on the main
   * thread, one after the other, and Spring Boot marks the application ready after them.
   */
  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (event.getApplicationContext() != context || state.equals("OFF")) {
      return;
    }
    state = "WARMING_UP";
    Thread thread = new Thread(this::run, "warm-up");
    thread.setDaemon(true);
    thread.start();
  }

  /** Out of service until the warm-up has ended, however it ended. */
  @Override
  public Health health() {
    String now = state;
    Health.Builder health =
        now.equals("PENDING") || now.equals("WARMING_UP") ? Health.outOfService() : Health.up();
    health.withDetail("state", now).withDetail("requests", answered.get());
    String why = ended;
    if (why != null) {
      health.withDetail("ended", why);
    }
    return health.build();
  }

  private void run() {
    String outcome = "STOPPED";
    try {
      URI base = base();
      if (base != null && properties.maxRequests() > 0) {
        outcome = warmUp(base);
      } else {
        outcome = "SKIPPED";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.warn("Warm-up stopped: {}", e.toString());
    } finally {
      tokens.close();
      state = outcome;
    }
  }

  /** How it ended: DONE, STOPPED (an unexpected answer) or SKIPPED (never ready). */
  private String warmUp(URI base) throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + properties.maxDuration().toNanos();
    while (!exercises.stream().allMatch(WarmUpRequests::ready)) {
      if (System.nanoTime() - deadline > 0) {
        log.info(
            "Not warmed up: the service could not answer as under load within {}",
            properties.maxDuration());
        return "SKIPPED";
      }
      Thread.sleep(100);
    }
    Set<String> roles = new LinkedHashSet<>();
    exercises.forEach(exercise -> roles.addAll(exercise.roles()));
    if (roles.isEmpty()) {
      tokens.close();
    }
    AtomicLong next = new AtomicLong();
    AtomicReference<String> unexpected = new AtomicReference<>();
    AtomicBoolean settled = new AtomicBoolean();
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            properties.concurrency(),
            task -> {
              Thread thread = new Thread(task, "warm-up-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    Runnable worker =
        () -> {
          String token = null;
          int used = 0;
          try (WarmUpConnection connection = new WarmUpConnection(base.getHost(), base.getPort())) {
            while (unexpected.get() == null && !settled.get() && System.nanoTime() - deadline < 0) {
              long n = next.getAndIncrement();
              if (n >= properties.maxRequests()) {
                return;
              }
              WarmUpRequests exercise = exercises.get((int) (n % exercises.size()));
              WarmUpRequests.Request request = exercise.request(n / exercises.size());
              if (!exercise.roles().isEmpty() && (token == null || used++ >= REQUESTS_PER_TOKEN)) {
                token = tokens.mint(List.copyOf(roles), properties.maxDuration().plusSeconds(30));
                used = 1;
              }
              String outcome =
                  send(connection, base, request, exercise.roles().isEmpty() ? null : token);
              if (outcome != null) {
                unexpected.compareAndSet(null, outcome);
                return;
              }
              answered.incrementAndGet();
            }
          }
        };
    for (int i = 0; i < properties.concurrency(); i++) {
      pool.execute(worker);
    }
    pool.shutdown();
    CompilerSettling compilers =
        new CompilerSettling(
            properties.settleWindow(),
            properties.settledCompilation(),
            CompilerSettling.jvmCompilers());
    long sending = System.nanoTime();
    while (!pool.awaitTermination(SAMPLE_MILLIS, TimeUnit.MILLISECONDS)) {
      long now = System.nanoTime();
      if (!settled.get() && compilers.settled(now)) {
        settled.set(true);
      }
      if (now - deadline > TimeUnit.SECONDS.toNanos(10)) {
        pool.shutdownNow();
        break;
      }
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    if (unexpected.get() != null) {
      ended = "unexpected-answer";
    } else if (settled.get()) {
      ended = "jit-settled";
    } else {
      ended = answered.get() >= properties.maxRequests() ? "max-requests" : "max-duration";
    }
    if (unexpected.get() != null) {
      log.warn(
          "Warm-up stopped after {} requests in {} ms: {}",
          answered.get(),
          millis,
          unexpected.get());
      return "STOPPED";
    }
    log.info(
        "Warmed up with {} requests in {} ms, {} ms of them sending ({}; the JIT compiled for {} ms"
            + " of the last {} ms)",
        answered.get(),
        millis,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sending),
        ended,
        compilers.lastWindowMillis(),
        properties.settleWindow().toMillis());
    return "DONE";
  }

  /** Null when answered as expected, else what was answered. */
  private static String send(
      WarmUpConnection connection, URI base, WarmUpRequests.Request request, String token) {
    URI target = base.resolve(request.path());
    String path =
        target.getRawQuery() == null
            ? target.getRawPath()
            : target.getRawPath() + "?" + target.getRawQuery();
    try {
      int status = connection.send(request.method(), path, request.jsonBody(), token);
      return request.expectedStatuses().contains(status)
          ? null
          : request.method() + " " + request.path() + " answered " + status;
    } catch (IOException | RuntimeException e) {
      connection.close();
      return request.method() + " " + request.path() + " failed: " + e;
    }
  }

  /** The service's own address, or null when it has no plain HTTP port to send to. */
  private URI base() {
    if (!(context instanceof WebServerApplicationContext web) || web.getWebServer() == null) {
      return null;
    }
    int port = web.getWebServer().getPort();
    if (port <= 0 || environment.getProperty("server.ssl.enabled", Boolean.class, false)) {
      log.info("Not warmed up: no plain HTTP port");
      return null;
    }
    String host = "127.0.0.1";
    String address = environment.getProperty("server.address");
    if (address != null && !address.isBlank()) {
      try {
        InetAddress bound = InetAddress.getByName(address);
        if (!bound.isAnyLocalAddress()) {
          host = bound.getHostAddress();
          if (host.contains(":")) {
            host = "[" + host + "]";
          }
        }
      } catch (IOException e) {
        log.info("Not warmed up: server.address {} cannot be resolved", address);
        return null;
      }
    }
    String contextPath = environment.getProperty("server.servlet.context-path", "");
    return URI.create("http://" + host + ":" + port + contextPath + "/");
  }

  /** The liveness probe, which load balancers and orchestrators call several times a second. */
  private record Liveness(String basePath) implements WarmUpRequests {

    @Override
    public List<String> roles() {
      return List.of();
    }

    @Override
    public Request request(long n) {
      return new Request(
          "GET", basePath.replaceAll("^/+|/+$", "") + "/health/liveness", null, Set.of(200));
    }
  }
}
