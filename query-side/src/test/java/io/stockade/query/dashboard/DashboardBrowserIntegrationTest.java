package io.stockade.query.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.Events;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operator's dashboard in a real browser: Debian's headless Chromium, driven through its
 * chromedriver, against this service on a random port. Events are appended to the event store; the
 * page shows them as an operator would see them: the stock table following the live stream, the
 * chart of the SKU's stock over time, a reservation with its audit timeline (one extended and
 * confirmed in part too: the hold's new end, the units sold and those given back), a reconciliation
 * report, a replay, a SKU's gate decisions around its sell-out and a user's attempts, a problem's
 * title and detail. Every call the page makes carries the token typed into it, as the browser's own
 * log of its network requests shows.
 *
 * <p>Skipped (a JUnit condition, checked before the application starts) where Chromium or
 * chromedriver is not installed, as on a machine with only a JDK; CI installs both. Screenshots:
 * {@code target/dashboard.png} (every panel filled), {@code target/dashboard-replay.png} (a replay
 * done), {@code target/dashboard-decisions.png} (a user's attempts) and {@code
 * target/dashboard-partial-confirmation.png} (a reservation confirmed in part).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@EnabledIf(
    value = "browserInstalled",
    disabledReason =
        "the dashboard's browser test needs Chromium and chromedriver (Debian: apt-get install"
            + " chromium chromium-driver; or -Dstockade.test.chromium=... and"
            + " -Dstockade.test.chromedriver=...)")
class DashboardBrowserIntegrationTest {

  private static final Path CHROMIUM =
      Path.of(System.getProperty("stockade.test.chromium", "/usr/bin/chromium"));
  private static final Path CHROMEDRIVER =
      Path.of(System.getProperty("stockade.test.chromedriver", "/usr/bin/chromedriver"));
  private static final String TOKEN = TestTokens.ALL_ROLES;
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static Path profile;
  private static WebDriver browser;
  private static final List<Sent> sent = new ArrayList<>();

  /** A request the browser sent: its path and {@code Authorization} header (null: none). */
  private record Sent(String path, String authorization) {}

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String run;

  /** Checked before the application starts: without a browser there is nothing to start. */
  static boolean browserInstalled() {
    boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (!installed) {
      System.err.println(
          "SKIPPED DashboardBrowserIntegrationTest: no executable "
              + CHROMIUM
              + " and "
              + CHROMEDRIVER
              + " (Debian: apt-get install chromium chromium-driver)");
    }
    return installed;
  }

  @BeforeAll
  static void startBrowser() throws IOException {
    profile = Files.createTempDirectory("dashboard-chromium");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    // The machine's network may be closed: without the background-networking switches Chromium
    // waits on refused connections of its own.
    // The browser's own record of its requests (the DevTools network events), headers included.
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.PERFORMANCE, Level.ALL);
    options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,2100",
        "--user-data-dir=" + profile);
    // The driver given explicitly: Selenium Manager, which would download one, is never asked.
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withLogFile(new File("target/dashboard-chromedriver.log"))
            .build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stopBrowser() throws IOException {
    if (browser != null) {
      browser.quit();
    }
    if (profile != null) {
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
    // Each test starts without the token, SKUs or replay the page kept for the tab.
    browser.get(url("/dashboard/"));
    ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
  }

  @Test
  void operatorFollowsTheStockOfASkuAndLooksUpAReservationWithItsTimeline() {
    String sku = "dash-" + run;
    String confirmed = "O-" + run;
    String released = "P-" + run;
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    List<ReservationLine> two = List.of(new ReservationLine(sku, 2));
    List<ReservationLine> five = List.of(new ReservationLine(sku, 5));
    append(sku, 0, new SkuRegistered(sku, 100, 3), now.minusSeconds(600));
    append(sku, 1, new StockReplenished(sku, "R-1", 20), now.minusSeconds(480));
    Instant reservedAt = now.minusSeconds(360);
    append(
        confirmed,
        0,
        new StockReserved(confirmed, "u-1", two, reservedAt, now.plusSeconds(900), 1, 1),
        reservedAt);
    Instant confirmedAt = now.minusSeconds(240);
    append(confirmed, 1, new StockConfirmed(confirmed, "u-1", two, confirmedAt), confirmedAt);
    append(
        released,
        0,
        new StockReserved(released, "u-2", five, now.minusSeconds(120), now, 2, 1),
        now.minusSeconds(120));
    append(
        released,
        1,
        new StockReleased(released, "u-2", five, "CANCELLED", now.minusSeconds(60)),
        now.minusSeconds(60));
    awaitReadModel(sku, 118, confirmed);

    browser.get(url("/"));
    assertThat(browser.getCurrentUrl()).isEqualTo(url("/dashboard/"));
    type("token", TOKEN);
    click("#token-form button[type=submit]");
    waitFor(() -> text("token-state").equals("Token in use."));

    // The stock table, then a change that only the live stream can bring (the page does not poll
    // the first SKUs it watches).
    type("stock-skus", sku);
    click("#stock-form button[type=submit]");
    waitFor(() -> stock(sku, "stream").equals("live") && stock(sku, "available").equals("118"));
    assertThat(stock(sku, "total")).isEqualTo("120");
    assertThat(stock(sku, "reserved")).isEqualTo("0");
    assertThat(stock(sku, "sold")).isEqualTo("2");
    assertThat(stock(sku, "perUserLimit")).isEqualTo("3");
    String live = "L-" + run;
    List<ReservationLine> four = List.of(new ReservationLine(sku, 4));
    append(live, 0, new StockReserved(live, "u-3", four, now, now.plusSeconds(900), 3, 1), now);
    waitFor(() -> stock(sku, "available").equals("114") && stock(sku, "reserved").equals("4"));
    assertThat(stock(sku, "total")).isEqualTo("120");
    assertThat(stock(sku, "stream")).isEqualTo("live");
    assertThat(authorizationsSent("/api/stock/" + sku + "/stream"))
        .isNotEmpty()
        .allMatch(("Bearer " + TOKEN)::equals);

    // The chart of the SKU over time, from its ledger: one point after each of its 7 entries.
    click("tr[data-sku='" + sku + "'] button");
    waitFor(() -> text("history-caption").startsWith(sku + " as of "));
    assertThat(text("history-caption"))
        .contains("total 120, available 114, reserved 4, sold 2")
        .contains("each of 7 ledger entries");
    WebElement canvas = browser.findElement(By.cssSelector("#history-chart canvas"));
    assertThat(canvas.getSize().getWidth()).isPositive();
    assertThat(canvas.getSize().getHeight()).isPositive();
    assertThat(pixelsOfColour(canvas, 0x1b, 0x7f, 0x3b))
        .as("pixels of the line of available units")
        .isGreaterThan(50);
    assertThat(authorizationsSent("/api/audit/skus/" + sku))
        .isNotEmpty()
        .allMatch(("Bearer " + TOKEN)::equals);

    // The reservation, and its timeline from the event store, oldest first.
    type("reservation-id", confirmed);
    click("#reservation-form button[type=submit]");
    waitFor(() -> browser.findElements(By.cssSelector("#timeline li")).size() == 2);
    List<WebElement> timeline = browser.findElements(By.cssSelector("#timeline li"));
    assertThat(
            timeline.stream()
                .map(item -> item.findElement(By.className("event-type")).getText())
                .toList())
        .containsExactly("StockReserved", "StockConfirmed");
    assertThat(
            timeline.stream()
                .map(item -> item.findElement(By.tagName("time")).getDomAttribute("datetime"))
                .map(Instant::parse)
                .toList())
        .containsExactly(reservedAt, confirmedAt);
    assertThat(timeline.get(0).getText()).contains("user u-1").contains("2 × " + sku);
    assertThat(detail("Status")).isEqualTo("CONFIRMED");
    assertThat(detail("User")).isEqualTo("u-1");
    assertThat(detail("Lines")).isEqualTo("2 × " + sku);
    assertThat(text("reservation-message")).isEmpty();
    assertThat(authorizationsSent("/api/audit/reservations/" + confirmed))
        .containsExactly("Bearer " + TOKEN);
    assertThat(authorizationsSent("/api/reservations/" + confirmed))
        .containsExactly("Bearer " + TOKEN);

    // A reconciliation report with a row for the SKU.
    click("#reconciliation-run");
    waitFor(
        () ->
            !browser
                .findElements(By.cssSelector("#reconciliation-skus tr[data-sku='" + sku + "']"))
                .isEmpty());
    assertThat(text("reconciliation-summary")).contains(" SKUs: ");

    screenshot(Path.of("target", "dashboard.png"));
  }

  @Test
  void operatorSeesAnExtendedHoldAndWhatAPartialConfirmationSoldAndGaveBack() {
    String a = "pa-" + run;
    String b = "pb-" + run;
    String id = "PC-" + run;
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    append(a, 0, new SkuRegistered(a, 50, null), now.minusSeconds(600));
    append(b, 0, new SkuRegistered(b, 50, null), now.minusSeconds(600));
    Instant reservedAt = now.minusSeconds(300);
    append(
        id,
        0,
        new StockReserved(
            id,
            "u-9",
            List.of(new ReservationLine(a, 3), new ReservationLine(b, 2)),
            reservedAt,
            now.plusSeconds(600),
            1,
            1),
        reservedAt);
    Instant extendedAt = now.minusSeconds(200);
    Instant newEnd = Instant.parse("2031-01-02T03:04:05Z");
    append(id, 1, new ReservationExtended(id, "u-9", newEnd, extendedAt), extendedAt);
    Instant confirmedAt = now.minusSeconds(100);
    transaction.executeWithoutResult(
        status -> {
          append(
              id,
              2,
              new StockConfirmed(id, "u-9", List.of(new ReservationLine(a, 1)), confirmedAt),
              confirmedAt);
          append(
              id,
              3,
              new StockReleased(
                  id,
                  "u-9",
                  List.of(new ReservationLine(a, 2), new ReservationLine(b, 2)),
                  StockReleased.NOT_CONFIRMED,
                  confirmedAt),
              confirmedAt);
        });
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () ->
                assertThat(
                        http.get("/api/reservations/" + id)
                            .getBody()
                            .path("releaseReason")
                            .asString())
                    .isEqualTo("NOT_CONFIRMED"));
    browser.get(url("/dashboard/"));
    type("token", TOKEN);
    click("#token-form button[type=submit]");
    waitFor(() -> text("token-state").equals("Token in use."));

    type("reservation-id", id);
    click("#reservation-form button[type=submit]");
    waitFor(() -> browser.findElements(By.cssSelector("#timeline li")).size() == 4);

    // The details: confirmed, the hold's last end, the units sold and those given back.
    assertThat(detail("Status")).isEqualTo("CONFIRMED");
    assertThat(detail("Lines")).isEqualTo("3 × " + a + ", 2 × " + b);
    assertThat(detail("Expires")).isEqualTo("2031-01-02 03:04:05Z");
    assertThat(detail("Sold")).isEqualTo("1 × " + a);
    assertThat(detail("Given back")).isEqualTo("2 × " + a + ", 2 × " + b);
    assertThat(detail("Release reason")).isEqualTo("NOT_CONFIRMED");
    // The timeline: the extension with its new end, the sale, the units given back.
    List<WebElement> timeline = browser.findElements(By.cssSelector("#timeline li"));
    assertThat(timeline.stream().map(item -> item.getDomAttribute("data-type")).toList())
        .containsExactly("StockReserved", "ReservationExtended", "StockConfirmed", "StockReleased");
    assertThat(summaryOf(timeline.get(1)))
        .isEqualTo("user u-9; hold extended to 2031-01-02 03:04:05Z");
    assertThat(summaryOf(timeline.get(2))).isEqualTo("user u-9; sold 1 × " + a);
    assertThat(summaryOf(timeline.get(3)))
        .isEqualTo("user u-9; given back 2 × " + a + ", 2 × " + b + " (not confirmed)");
    assertThat(
            timeline.stream()
                .map(item -> item.findElement(By.tagName("time")).getDomAttribute("datetime"))
                .map(Instant::parse)
                .toList())
        .containsExactly(reservedAt, extendedAt, confirmedAt, confirmedAt);
    assertThat(text("reservation-message")).isEmpty();
    screenshot(Path.of("target", "dashboard-partial-confirmation.png"));
  }

  private static String summaryOf(WebElement item) {
    return item.findElement(By.className("event-summary")).getText();
  }

  @Test
  void operatorSeesASkusDecisionsAroundItsSellOutAndAUsersAttempts() {
    String sku = "gate-" + run;
    String other = "other-" + run;
    String user = "buyer-" + run;
    long t0 = Instant.parse("2026-11-30T10:00:00Z").toEpochMilli();
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      // 70 units: the 70th decision (position 69) leaves none; two decisions a millisecond.
      long available = Math.max(0, 69 - i);
      String outcome = i < 70 ? "ADMITTED" : "INSUFFICIENT_STOCK";
      rows.add(
          new Object[] {
            sku, t0 + i / 2, i, 0, 1, i + 1, "O-" + i, "u-" + i, 1, outcome, available
          });
    }
    rows.add(new Object[] {sku, t0 + 100, 0, 1, 1, 500, "B-1", user, 2, "ADMITTED", 3});
    rows.add(
        new Object[] {other, t0 + 50, 0, 0, 1, 501, "B-2", user, 1, "PURCHASE_LIMIT_EXCEEDED", 8});
    jdbc.batchUpdate(
        "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
            + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows);
    browser.get(url("/dashboard/"));
    type("token", TOKEN);
    click("#token-form button[type=submit]");
    waitFor(() -> text("token-state").equals("Token in use."));

    // Around the sell-out: the page of 50 that holds it, the decision that left nothing marked.
    type("decisions-sku", sku);
    click("#decisions-sku-form button[type=submit]");
    waitFor(() -> text("decisions-page").equals("Page 2 of 3"));
    List<WebElement> soldOut = browser.findElements(By.cssSelector("#decisions-table tr.sellout"));
    assertThat(soldOut).hasSize(1);
    assertThat(soldOut.get(0).getDomAttribute("data-position")).isEqualTo("69");
    assertThat(decisionCell(soldOut.get(0), "availableAfter")).isEqualTo("0");
    assertThat(decisionCell(soldOut.get(0), "at")).isEqualTo("2026-11-30 10:00:00.034");
    assertThat(text("decisions-summary"))
        .contains("121 decisions of SKU " + sku)
        .contains("first sell-out at decision #70");
    assertThat(decisionSequences()).first().isEqualTo(51L);
    assertThat(decisionSequences()).hasSize(50).isSorted();

    // The pages after and before it, and the first.
    click("#decisions-next");
    waitFor(() -> text("decisions-page").equals("Page 3 of 3"));
    assertThat(decisionSequences()).hasSize(21).startsWith(101L).endsWith(500L);
    assertThat(browser.findElement(By.id("decisions-next")).isEnabled()).isFalse();
    click("#decisions-previous");
    waitFor(() -> text("decisions-page").equals("Page 2 of 3"));
    assertThat(browser.findElements(By.cssSelector("#decisions-table tr.sellout"))).hasSize(1);
    click("#decisions-first");
    waitFor(() -> text("decisions-page").equals("Page 1 of 3"));
    assertThat(decisionSequences()).startsWith(1L, 2L, 3L);
    assertThat(authorizationsSent("/api/audit/skus/" + sku + "/decisions"))
        .hasSize(4)
        .allMatch(("Bearer " + TOKEN)::equals);

    // A user's attempts, every SKU's, oldest first.
    type("decisions-user", user);
    click("#decisions-user-form button[type=submit]");
    waitFor(() -> text("decisions-summary").startsWith("2 attempts of user " + user));
    List<WebElement> attempts = browser.findElements(By.cssSelector("#decisions-table tbody tr"));
    assertThat(attempts).hasSize(2);
    assertThat(attempts.stream().map(row -> decisionCell(row, "skuId")).toList())
        .containsExactly(other, sku);
    assertThat(attempts.stream().map(row -> decisionCell(row, "outcome")).toList())
        .containsExactly("PURCHASE_LIMIT_EXCEEDED", "ADMITTED");
    assertThat(text("decisions-message")).isEmpty();
    assertThat(authorizationsSent("/api/audit/users/" + user + "/decisions"))
        .containsExactly("Bearer " + TOKEN);
    screenshot(Path.of("target", "dashboard-decisions.png"));
  }

  private static String decisionCell(WebElement row, String field) {
    return row.findElement(By.cssSelector("[data-field='" + field + "']")).getText();
  }

  private static List<Long> decisionSequences() {
    return browser.findElements(By.cssSelector("#decisions-table tbody tr")).stream()
        .map(row -> Long.parseLong(row.getDomAttribute("data-sequence")))
        .toList();
  }

  @Test
  void aProblemIsShownWithItsTitleAndDetail() {
    browser.get(url("/dashboard/"));
    String absent = "absent-" + run;

    // Without a token: the service's 401, as a problem.
    type("reservation-id", absent);
    click("#reservation-form button[type=submit]");
    waitFor(() -> text("reservation-message").contains("Timeline:"));
    assertThat(text("reservation-message"))
        .contains("Reservation: Unauthorized: This request needs a bearer token");

    type("token", TOKEN);
    click("#token-form button[type=submit]");
    waitFor(() -> text("token-state").equals("Token in use."));
    click("#reservation-form button[type=submit]");

    waitFor(() -> text("reservation-message").contains("Unknown reservation"));
    waitFor(() -> text("reservation-message").contains("Timeline: Unknown"));
    assertThat(text("reservation-message"))
        .contains(
            "Reservation: Unknown reservation: Reservation "
                + absent
                + " is not in the read model.")
        .contains(
            "Timeline: Unknown reservation: The event store holds no event of reservation "
                + absent
                + ".");
    assertThat(browser.findElement(By.id("reservation-message")).getDomAttribute("class"))
        .contains("error");
    assertThat(browser.findElements(By.cssSelector("#timeline li"))).isEmpty();
  }

  @Test
  void aReplayIsStartedAndItsProgressFollowedToTheEnd() {
    String sku = "replayed-" + run;
    append(sku, 0, new SkuRegistered(sku, 7, null), Instant.now());
    browser.get(url("/dashboard/"));
    type("token", TOKEN);
    click("#token-form button[type=submit]");

    click("#replay-start");
    new WebDriverWait(browser, PATIENCE).until(ExpectedConditions.alertIsPresent()).accept();

    waitFor(() -> text("replay-label").endsWith(": DONE"));
    WebElement progress = browser.findElement(By.id("replay-progress"));
    assertThat(progress.getDomProperty("value")).isEqualTo("100");
    assertThat(text("replay-percent")).startsWith("100 % (");
    assertThat(text("replay-message")).isEmpty();
    assertThat(authorizationsSent("/api/replays")).containsExactly("Bearer " + TOKEN);
    screenshot(Path.of("target", "dashboard-replay.png"));
    // The rebuilt read model has the SKU again.
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> assertThat(http.get("/api/stock/" + sku).getStatusCode().value()).isEqualTo(200));
  }

  private void awaitReadModel(String sku, long available, String reservation) {
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(http.get("/api/stock/" + sku).getBody().path("available").asLong())
                  .isEqualTo(available);
              assertThat(
                      http.get("/api/reservations/" + reservation)
                          .getBody()
                          .path("status")
                          .asString())
                  .isEqualTo("CONFIRMED");
            });
  }

  /** The {@code Authorization} header of each request the browser sent to this path so far. */
  private static List<String> authorizationsSent(String path) {
    for (LogEntry entry : browser.manage().logs().get(LogType.PERFORMANCE)) {
      JsonNode message = JSON.readTree(entry.getMessage()).path("message");
      if (message.path("method").asString().equals("Network.requestWillBeSent")) {
        JsonNode request = message.path("params").path("request");
        JsonNode authorization = request.path("headers").path("Authorization");
        sent.add(
            new Sent(
                URI.create(request.path("url").asString()).getPath(),
                authorization.isMissingNode() ? null : authorization.asString()));
      }
    }
    return sent.stream()
        .filter(request -> path.equals(request.path()))
        .map(Sent::authorization)
        .toList();
  }

  private String url(String path) {
    return "http://localhost:" + port + path;
  }

  private static void type(String id, String text) {
    WebElement input = browser.findElement(By.id(id));
    input.clear();
    input.sendKeys(text);
  }

  private static void click(String css) {
    browser.findElement(By.cssSelector(css)).click();
  }

  private static String text(String id) {
    return browser.findElement(By.id(id)).getText();
  }

  private static String stock(String sku, String field) {
    return browser
        .findElement(By.cssSelector("tr[data-sku='" + sku + "'] [data-field='" + field + "']"))
        .getText();
  }

  private static String detail(String name) {
    return browser
        .findElement(By.cssSelector("#reservation-details dd[data-field='" + name + "']"))
        .getText();
  }

  private static void waitFor(BooleanSupplier condition) {
    new WebDriverWait(browser, PATIENCE)
        .ignoring(StaleElementReferenceException.class)
        .until(driver -> condition.getAsBoolean());
  }

  /** Pixels of the canvas drawn in this colour: a series' line is there, not only the axes. */
  private static long pixelsOfColour(WebElement canvas, int red, int green, int blue) {
    Object count =
        ((JavascriptExecutor) browser)
            .executeScript(
                "const c = arguments[0];"
                    + "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                    + "let n = 0;"
                    + "for (let i = 0; i < d.length; i += 4) {"
                    + "  if (Math.abs(d[i] - arguments[1]) < 8 && Math.abs(d[i + 1] - arguments[2]) < 8"
                    + "      && Math.abs(d[i + 2] - arguments[3]) < 8 && d[i + 3] > 200) n++;"
                    + "}"
                    + "return n;",
                canvas,
                red,
                green,
                blue);
    return ((Number) count).longValue();
  }

  private static void screenshot(Path file) {
    try {
      Files.write(file, ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
    } catch (IOException e) {
      throw new IllegalStateException("Could not save the screenshot " + file, e);
    }
  }

  private void append(String aggregateId, long sequence, Object payload, Instant at) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload, at);
  }
}
