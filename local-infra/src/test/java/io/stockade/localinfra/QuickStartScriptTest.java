package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ./stockade up} says "up" only once each service's health is UP, not when a component of a
 * health that is DOWN is; and the SKU its printed examples register is none of those the README and
 * docs register differently, so that following both, across restarts, meets no 409.
 */
class QuickStartScriptTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern SKU_IN_PATH =
      Pattern.compile("/api/(?:skus|stock)/([A-Za-z0-9._-]+)");
  private static final Pattern SKU_IN_BODY = Pattern.compile("\"skuId\": ?\"([A-Za-z0-9._-]+)\"");

  /** What the fake service's health answers: status code and body. */
  private final AtomicReference<Health> health = new AtomicReference<>();

  private HttpServer server;

  private record Health(int status, String body) {}

  @BeforeEach
  void startAFakeHealthEndpoint() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/actuator/health",
        exchange -> {
          Health answer = health.get();
          byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(answer.status(), body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aServiceIsNotReadyWhileItsHealthIsDownThoughAComponentIsUp() throws Exception {
    health.set(
        new Health(
            503,
            "{\"components\":{\"db\":{\"status\":\"UP\"},\"gate\":{\"status\":\"DOWN\"}},"
                + "\"status\":\"DOWN\"}"));
    assertThat(healthy()).as("a health that is DOWN").isFalse();

    health.set(
        new Health(
            503,
            "{\"components\":{\"gate\":{\"status\":\"OUT_OF_SERVICE\"},\"redis\":{\"status\":\"UP\"}},"
                + "\"status\":\"OUT_OF_SERVICE\"}"));
    assertThat(healthy()).as("a health that is OUT_OF_SERVICE").isFalse();

    health.set(new Health(200, "{\"components\":{\"db\":{\"status\":\"UP\"}},\"status\":\"UP\"}"));
    assertThat(healthy()).as("a health that is UP").isTrue();
  }

  @Test
  void theQuickStartsExampleSkuIsNoneOfTheDocumentedOnes() throws Exception {
    Set<String> printed = skus(script("print_usage_examples"));
    Set<String> documented = new TreeSet<>();
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      for (Path page :
          Stream.concat(
                  Stream.of(ROOT.resolve("README.md")),
                  docs.filter(p -> p.toString().endsWith(".md")))
              .toList()) {
        documented.addAll(skus(Files.readString(page)));
      }
    }

    assertThat(printed).as("the SKUs of ./stockade up's examples").hasSize(1);
    assertThat(documented).as("the SKUs of the README and docs").isNotEmpty();
    assertThat(documented).doesNotContainAnyElementsOf(printed);
  }

  private boolean healthy() throws Exception {
    return run("healthy " + server.getAddress().getPort()).exit() == 0;
  }

  private static String script(String function) throws Exception {
    Result result = run(function);
    assertThat(result.exit()).as(result.out()).isZero();
    return result.out();
  }

  private record Result(int exit, String out) {}

  /** Runs one of the script's functions, the script sourced as its tests do. */
  private static Result run(String call) throws Exception {
    Process process =
        new ProcessBuilder("bash", "-c", "source ./stockade && " + call)
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().close();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(out).isTrue();
    return new Result(process.exitValue(), out);
  }

  private static Set<String> skus(String text) {
    Set<String> skus = new TreeSet<>();
    for (Pattern pattern : new Pattern[] {SKU_IN_PATH, SKU_IN_BODY}) {
      Matcher sku = pattern.matcher(text);
      while (sku.find()) {
        skus.add(sku.group(1));
      }
    }
    return skus;
  }
}
