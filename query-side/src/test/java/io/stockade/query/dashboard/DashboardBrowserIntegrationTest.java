package io.stockade.query.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.draw.DrawSeed;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleScheduled;
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
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
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
 * title and detail; and the first screen, without typing anything but the token: the gate's state,
 * the chart of admissions and refusals per second, every SKU's sale in pages, the busiest first,
 * and the sale's commands with what each changed, sent to a stand-in for the command side ({@link
 * StubCommandSide}). Every call the page makes carries the token typed into it, as the browser's
 * own log of its network requests shows.
 *
 * <p>Skipped (a JUnit condition, checked before the application starts) where Chromium or
 * chromedriver is not installed, as on a machine with only a JDK; CI installs both. Screenshots:
 * {@code target/dashboard.png} (every panel filled), {@code target/dashboard-replay.png} (a replay
 * done), {@code target/dashboard-decisions.png} (a user's attempts) and {@code
 * target/dashboard-partial-confirmation.png} (a reservation confirmed in part), {@code
 * target/dashboard-first-screen.png} (the sale).
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

  /** Where the page sends the sale's commands in this test (see {@link StubCommandSide}). */
  private static final StubCommandSide commandSide = new StubCommandSide();

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

  @DynamicPropertySource
  static void commandSide(DynamicPropertyRegistry properties) {
    properties.add("stockade.dashboard.command-side-url", commandSide::url);
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
    commandSide.close();
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
    click("#stock-table tr[data-sku='" + sku + "'] button");
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

  @Test
  void thePageOpensOnTheSale() {
    String scheduled = "sale-a-" + run;
    String paused = "sale-b-" + run;
    String open = "sale-c-" + run;
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant opensAt = now.plus(Duration.ofHours(2));
    append(scheduled, 0, new SkuRegistered(scheduled, 100, 3), now.minusSeconds(300));
    append(scheduled, 1, new SaleScheduled(scheduled, opensAt, null, 60), now.minusSeconds(290));
    append(paused, 0, new SkuRegistered(paused, 50, null), now.minusSeconds(300));
    append(paused, 1, new SalePaused(paused, "price error"), now.minusSeconds(280));
    append(open, 0, new SkuRegistered(open, 20, null), now.minusSeconds(300));
    String held = "H-" + run;
    String sold = "S-" + run;
    append(
        held,
        0,
        new StockReserved(
            held, "u-1", List.of(new ReservationLine(open, 4)), now, now.plusSeconds(900), 1, 1),
        now.minusSeconds(200));
    List<ReservationLine> two = List.of(new ReservationLine(open, 2));
    append(
        sold,
        0,
        new StockReserved(sold, "u-2", two, now, now.plusSeconds(900), 2, 1),
        now.minusSeconds(150));
    append(sold, 1, new StockConfirmed(sold, "u-2", two, now), now.minusSeconds(100));
    // Enough SKUs for a second page, whatever else the database holds.
    List<String> fillers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      String filler = String.format("fill-%s-%02d", run, i);
      fillers.add(filler);
      append(filler, 0, new SkuRegistered(filler, 1, null), now.minusSeconds(400));
    }
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(http.get("/api/stock/" + open).getBody().path("sold").asLong())
                  .isEqualTo(2);
              assertThat(
                      http.get("/api/stock/" + paused)
                          .getBody()
                          .path("sale")
                          .path("state")
                          .asString())
                  .isEqualTo("PAUSED");
              assertThat(
                      http.get("/api/stock/" + scheduled)
                          .getBody()
                          .path("sale")
                          .path("state")
                          .asString())
                  .isEqualTo("SCHEDULED");
              assertThat(http.get("/api/stock?skuIds=" + String.join(",", fillers)).getBody())
                  .hasSize(50);
            });
    // The busiest first: the suite's database holds SKUs with more events than these, so these
    // three are made the busiest by their activity, in this order.
    long busiest = jdbc.queryForObject("select max(activity) from stock_level", Long.class);
    jdbc.update("update stock_level set activity = ? where sku_id = ?", busiest + 30, scheduled);
    jdbc.update("update stock_level set activity = ? where sku_id = ?", busiest + 20, paused);
    jdbc.update("update stock_level set activity = ? where sku_id = ?", busiest + 10, open);
    // The gate's decisions of the last minute: 4 admitted and 8 refused a second, for 10 s.
    long second = System.currentTimeMillis() / 1000 * 1000 - 40_000;
    List<Object[]> decisions = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      long at = second + (i / 12) * 1000L + i % 12;
      String outcome = i % 3 == 0 ? "ADMITTED" : "INSUFFICIENT_STOCK";
      decisions.add(
          new Object[] {open, at, i, 0, 1, i + 1, "D-" + run + "-" + i, "u-" + i, 1, outcome, 0});
    }
    jdbc.batchUpdate(
        "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
            + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        decisions);

    // The page opened with a token kept for the tab: nothing typed, nothing clicked.
    ((JavascriptExecutor) browser)
        .executeScript("sessionStorage.setItem('stockade.dashboard.token', arguments[0])", TOKEN);
    // Only this page's requests count: the page setUp opened (and the pages of the tests before)
    // went on reading the first screen every 5 s, without a token once setUp cleared it.
    forgetRequestsSent();
    browser.get(url("/dashboard/"));

    // The gate's line, as GET /api/gate tells it.
    String gateState = http.get("/api/gate").getBody().path("state").asString();
    waitFor(
        () ->
            gateState.equals(
                browser.findElement(By.id("gate-line")).getDomAttribute("data-state")));
    assertThat(text("gate-line")).startsWith("Gate " + gateState);
    if (!gateState.equals("OPEN")) {
      assertThat(text("gate-line"))
          .contains(http.get("/api/gate").getBody().path("reason").asString());
    }

    // The chart of the last 5 minutes, drawn from the decisions.
    waitFor(() -> numberIn("rate-figure", "data-refused") >= 80);
    assertThat(numberIn("rate-figure", "data-admitted")).isGreaterThanOrEqualTo(40);
    assertThat(text("rate-caption")).contains(" admitted (at most ").contains(" refused (at most ");
    WebElement rate = browser.findElement(By.cssSelector("#rate-chart canvas"));
    assertThat(pixelsOfColour(rate, 0x1b, 0x7f, 0x3b)).as("the admitted line").isGreaterThan(20);
    assertThat(pixelsOfColour(rate, 0xb3, 0x26, 0x1e)).as("the refused line").isGreaterThan(20);

    // Every SKU's sale, the busiest first, with its state, countdown and numbers.
    waitFor(() -> saleRows().size() == 50);
    assertThat(saleRows().subList(0, 3)).containsExactly(scheduled, paused, open);
    assertThat(sale(scheduled, "state")).isEqualTo("SCHEDULED");
    assertThat(sale(scheduled, "opens"))
        .startsWith(opensAt.toString().replace("T", " "))
        .containsPattern("opens in 1:5\\d:\\d\\d")
        .contains("pre-queue 60 s");
    assertThat(sale(scheduled, "closes")).isEqualTo("no end");
    assertThat(sale(scheduled, "available")).isEqualTo("100");
    assertThat(sale(scheduled, "perUserLimit")).isEqualTo("3");
    assertThat(sale(paused, "state")).isEqualTo("PAUSED (price error)");
    assertThat(sale(paused, "perUserLimit")).isEqualTo("none");
    assertThat(sale(open, "state")).isEqualTo("OPEN");
    assertThat(sale(open, "opens")).isEqualTo("on sale since registration");
    assertThat(sale(open, "available")).isEqualTo("14");
    assertThat(sale(open, "reserved")).isEqualTo("4");
    assertThat(sale(open, "sold")).isEqualTo("2");
    assertThat(sale(open, "total")).isEqualTo("20");
    long total = http.get("/api/sales?size=1").getBody().path("totalEntries").asLong();
    long pages = (total + 49) / 50;
    assertThat(text("sales-page")).isEqualTo("Page 1 of " + pages);
    assertThat(browser.findElement(By.id("sales-previous")).isEnabled()).isFalse();
    assertThat(authorizationsSent("/api/sales")).isNotEmpty().allMatch(("Bearer " + TOKEN)::equals);
    assertThat(authorizationsSent("/api/gate")).isNotEmpty().allMatch(("Bearer " + TOKEN)::equals);
    assertThat(authorizationsSent("/api/decisions/rate"))
        .isNotEmpty()
        .allMatch(("Bearer " + TOKEN)::equals);
    screenshot(Path.of("target", "dashboard-first-screen.png"));

    // A command, sent to the command side with the token, and what it changed.
    // The SKU as the command side sees it before the command, then the command's answer.
    commandSide.sku(
        "{\"skuId\": \""
            + open
            + "\", \"total\": 20, \"available\": 14, \"reserved\": 4, \"sold\": 2,"
            + " \"perUserLimit\": null, \"sale\": {\"state\": \"OPEN\", \"opensAt\": null,"
            + " \"closesAt\": null, \"prequeueSeconds\": 0, \"pausedReason\": null}}");
    commandSide.answer(
        200,
        "application/json",
        "{\"skuId\": \""
            + open
            + "\", \"total\": 20, \"available\": 14, \"reserved\": 4, \"sold\": 2,"
            + " \"perUserLimit\": null, \"sale\": {\"state\": \"PAUSED\", \"opensAt\": null,"
            + " \"closesAt\": null, \"prequeueSeconds\": 0, \"pausedReason\": \"price error\"}}");
    waitFor(
        () -> {
          click("tr[data-sku='" + open + "'] [data-field='commands'] button");
          return text("commands-sku").equals(open);
        });
    type("pause-reason", "price error");
    click("#pause-send");
    waitFor(() -> text("commands-result").contains("Pause: "));
    assertThat(text("commands-result"))
        .isEqualTo(open + " — Pause: state OPEN → PAUSED; pausedReason none → price error");
    waitFor(
        () ->
            sale(open, "change")
                .equals("Pause: state OPEN → PAUSED; pausedReason none → price error"));
    assertThat(commandSide.received())
        .last()
        .isEqualTo(
            new StubCommandSide.Received(
                "POST",
                "/api/skus/" + open + "/pause",
                "Bearer " + TOKEN,
                "{\"reason\":\"price error\"}"));

    // A refused one: the problem's title and detail.
    commandSide.answer(
        409,
        "application/problem+json",
        "{\"type\": \"https://stockade.io/problems/insufficient-stock\", \"title\":"
            + " \"Insufficient stock\", \"status\": 409, \"detail\": \"Only 14 units are"
            + " available.\", \"available\": 14}");
    type("adjust-quantity", "-500");
    click("#adjust-form button[type=submit]");
    waitFor(() -> text("commands-result").contains("Adjust refused"));
    assertThat(text("commands-result"))
        .isEqualTo(open + " — Adjust refused: Insufficient stock: Only 14 units are available.");
    assertThat(browser.findElement(By.id("commands-result")).getDomAttribute("class"))
        .contains("error");
    StubCommandSide.Received adjustment =
        commandSide.received().get(commandSide.received().size() - 1);
    assertThat(adjustment.path()).isEqualTo("/api/skus/" + open + "/adjustments");
    JsonNode adjusted = JSON.readTree(adjustment.body());
    assertThat(adjusted.path("adjustmentId").asString()).startsWith("dash-");
    assertThat(adjusted.path("quantity").asLong()).isEqualTo(-500);
    assertThat(adjusted.path("reason").asString()).isEqualTo("DAMAGED");

    // The next page: the SKUs the service lists there.
    click("#sales-next");
    waitFor(() -> text("sales-page").equals("Page 2 of " + pages));
    List<String> second50 = new ArrayList<>();
    http.get("/api/sales?page=1&size=50")
        .getBody()
        .path("skus")
        .forEach(sku -> second50.add(sku.path("skuId").asString()));
    waitFor(() -> saleRows().equals(second50));
    assertThat(browser.findElement(By.id("sales-previous")).isEnabled()).isTrue();
    click("#sales-previous");
    waitFor(() -> text("sales-page").equals("Page 1 of " + pages));
    assertThat(saleRows().subList(0, 3)).containsExactly(scheduled, paused, open);
  }

  private static List<String> saleRows() {
    return fresh(
        () ->
            browser.findElements(By.cssSelector("#sales-table tbody tr")).stream()
                .map(row -> row.getDomAttribute("data-sku"))
                .toList());
  }

  private static String sale(String sku, String field) {
    return fresh(
        () ->
            browser
                .findElement(
                    By.cssSelector(
                        "#sales-table tr[data-sku='" + sku + "'] [data-field='" + field + "']"))
                .getText());
  }

  private static long numberIn(String id, String attribute) {
    String value = fresh(() -> browser.findElement(By.id(id)).getDomAttribute(attribute));
    return value == null ? -1 : Long.parseLong(value);
  }

  private static String summaryOf(WebElement item) {
    return item.findElement(By.className("event-summary")).getText();
  }

  @Test
  void operatorSeesAPrequeueAndChecksItsDraw() {
    String sku = "draw-" + run;
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant opensAt = now.plus(Duration.ofMinutes(30));
    append(sku, 0, new SkuRegistered(sku, 10, null), now.minusSeconds(60));
    append(sku, 1, new SaleScheduled(sku, opensAt, null, 3600), now.minusSeconds(50));
    DrawSeed seed = DrawSeed.random();
    List<String> ids = List.of("Q-" + run + "-1", "Q-" + run + "-2", "Q-" + run + "-3");
    for (String id : ids) {
      append(
          id,
          0,
          new ReservationQueued(
              id,
              "u-" + id,
              List.of(new ReservationLine(sku, 1)),
              600_000,
              opensAt,
              seed.commitment(),
              now),
          now);
    }
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                http.get("/api/stock/" + sku).getBody().path("sale").path("queued").asLong() == 3);
    long busiest = jdbc.queryForObject("select max(activity) from stock_level", Long.class);
    jdbc.update("update stock_level set activity = ? where sku_id = ?", busiest + 50, sku);

    ((JavascriptExecutor) browser)
        .executeScript("sessionStorage.setItem('stockade.dashboard.token', arguments[0])", TOKEN);
    browser.get(url("/dashboard/"));
    waitFor(() -> saleRows().contains(sku));
    assertThat(sale(sku, "state")).isEqualTo("PREQUEUE");
    assertThat(sale(sku, "queued")).isEqualTo("3");
    assertThat(sale(sku, "opens")).containsPattern("opens in 0:[23]\\d:\\d\\d");

    // The draw as the command side publishes it: the seed's order checks out in the browser.
    List<String> order = seed.order(ids);
    commandSide.draw(drawJson(sku, opensAt, seed.commitment(), seed.hex(), order));
    waitFor(
        () -> {
          click("tr[data-sku='" + sku + "'] [data-field='commands'] button");
          return text("commands-sku").equals(sku);
        });
    click("#draw-load");
    waitFor(() -> text("draw-verify").equals("verified"));
    assertThat(text("draw-seed")).isEqualTo(seed.hex());
    assertThat(text("draw-order")).isEqualTo(String.join(", ", order));
    assertThat(text("draw-counts")).isEqualTo("3 queued, 2 admitted");

    // An order the seed does not give, and a seed that is not the commitment's, do not verify.
    List<String> swapped = new ArrayList<>(order);
    java.util.Collections.swap(swapped, 0, 2);
    commandSide.draw(drawJson(sku, opensAt, seed.commitment(), seed.hex(), swapped));
    click("#draw-load");
    waitFor(() -> text("draw-verify").equals("does not verify"));
    DrawSeed other = DrawSeed.random();
    commandSide.draw(drawJson(sku, opensAt, seed.commitment(), other.hex(), order));
    click("#draw-load");
    waitFor(
        () ->
            text("draw-seed").equals(other.hex()) && text("draw-verify").equals("does not verify"));
    // Before the draw: nothing to check.
    commandSide.draw(drawJson(sku, opensAt, seed.commitment(), null, List.of()));
    click("#draw-load");
    waitFor(() -> text("draw-verify").startsWith("not decided yet"));
  }

  private static String drawJson(
      String sku, Instant opensAt, String commitment, String seed, List<String> order) {
    return "{\"skuId\": \""
        + sku
        + "\", \"opensAt\": \""
        + opensAt
        + "\", \"drawCommitment\": \""
        + commitment
        + "\", \"seed\": "
        + (seed == null ? "null" : "\"" + seed + "\"")
        + ", \"queued\": 3, \"admitted\": "
        + (seed == null ? 0 : 2)
        + ", \"order\": ["
        + String.join(", ", order.stream().map(id -> "\"" + id + "\"").toList())
        + "]}";
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
  /** Drops the requests the browser sent so far: {@link #authorizationsSent} sees later ones. */
  private static void forgetRequestsSent() {
    browser.manage().logs().get(LogType.PERFORMANCE);
    sent.clear();
  }

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
    return fresh(() -> browser.findElement(By.id(id)).getText());
  }

  private static String stock(String sku, String field) {
    return fresh(
        () ->
            browser
                .findElement(
                    By.cssSelector(
                        "#stock-table tr[data-sku='" + sku + "'] [data-field='" + field + "']"))
                .getText());
  }

  private static String detail(String name) {
    return fresh(
        () ->
            browser
                .findElement(By.cssSelector("#reservation-details dd[data-field='" + name + "']"))
                .getText());
  }

  /**
   * A read of the page that finds its elements anew when the page re-rendered them between the find
   * and the read (the first screen redraws its tables every 5 s): a stale element is the page
   * moving on, not a wrong answer. Read again at most a few times; a page that redraws all the
   * while still fails.
   */
  private static <T> T fresh(java.util.function.Supplier<T> read) {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.get();
      } catch (StaleElementReferenceException redrawn) {
        if (attempt == 10) {
          throw redrawn;
        }
      }
    }
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
