package io.stockade.query.dashboard;

import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.QuerySideApplication;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Benchmark driver for {@code bench/dashboard}: how long the operator's dashboard takes to show its
 * first screen (every SKU's sale, 50 to a page, the busiest first; the gate's line; the chart of
 * admissions and refusals per second) in a real browser when the query side knows {@code skus}
 * SKUs, and to turn to the next page; next to the plain HTTP calls of the first and the last page
 * of {@code GET /api/sales}.
 *
 * <ol>
 *   <li>starts the query side on a database of its own (Flyway makes the tables and the index of
 *       the busiest), its reconciliation schedule off;
 *   <li>writes, with {@code INSERT ... SELECT} from a table of numbers, {@code skus} rows of the
 *       read model's {@code stock_level} ({@code bench-00000} ...), registered, each with an
 *       activity of its own (1 to {@code skus}, a permutation of the SKUs' order, so that neither
 *       the SKU order nor the insertion order is the busiest order) and sales of every state (open,
 *       scheduled with a pre-queue, paused, closed); and {@code ratePerSecond} gate decisions a
 *       second from 5 minutes before the start to 30 minutes after it, for the chart. The stock
 *       ledger is not written: the first screen does not read it (the activity counts no ledger
 *       entry here);
 *   <li>drives Debian's headless Chromium through its chromedriver as {@code
 *       DashboardBrowserIntegrationTest} does, the token kept for the tab in sessionStorage, and
 *       times, {@code repeat} times after {@code warmUp} untimed rounds: the page opened ({@code
 *       browser.get}) until its first screen is complete (the sales table with the 50 SKUs of the
 *       first page, the busiest first, its pager reading "Page 1 of N", the gate's line and the
 *       chart drawn), with the browser's cache as it is and with the cache disabled; and a click on
 *       "Next page" until "Page 2 of N" shows the next 50 SKUs;
 *   <li>then the plain HTTP calls (the first and the last page, the chart's 5 minutes), {@code
 *       repeat} times each after {@code warmUp} untimed ones, and the same SQL as the service's on
 *       a connection of its own ({@code plain-...}).
 * </ol>
 *
 * A wrong page fails the run, it is not timed: the SKUs shown (every row) and those answered over
 * HTTP are compared with the busiest order the driver wrote. The page records, from a script the
 * browser runs in each new document before the page's own (a MutationObserver), when each part of
 * the first screen first showed, in milliseconds since the navigation started ({@code
 * performance.now()}); those are printed as {@code RESULT page-...} next to the wall times ({@code
 * RESULT browser-...}, measured in this JVM: WebDriver's round trips included). The dashboard has
 * no control to jump to a page (only Previous and Next): the last page is timed over HTTP only.
 *
 * <p>Prints {@code RESULT <name> <median ms> <p90 ms> <max ms>}. Options as key=value: host, port,
 * user, password (the MariaDB: 127.0.0.1, 3306, root, empty), database (stockade_bench_dashboard),
 * redisHost, redisPort (127.0.0.1, 6379: the gate's line reads the gate's state there), skus
 * (10000, at least 100), ratePerSecond (100), repeat (20), warmUp (5), chromium
 * (/usr/bin/chromium), chromedriver (/usr/bin/chromedriver), keep (false: drop the database at the
 * end).
 */
public final class DashboardLoadLatency {

  private static final int PAGE = 50;
  private static final String TOKEN_KEY = "stockade.dashboard.token";
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * Run in every new document before the page's scripts: notes when each part of the first screen
   * first showed (ms since the navigation started), and a page that shows the wrong SKUs first.
   * EXPECTED is replaced by each pager text's expected first SKU.
   */
  private static final String OBSERVER =
      """
      (() => {
        const expected = EXPECTED;
        const b = window.__bench = { shown: {}, wrong: null, gate: null, rate: null, clicks: [],
          waiter: null };
        const check = () => {
          const now = performance.now();
          const pager = document.getElementById('sales-page');
          const rows = document.querySelectorAll('#sales-table tbody tr');
          if (pager && rows.length > 0) {
            const text = pager.textContent;
            if (!(text in b.shown)) {
              const first = rows[0].dataset.sku;
              if (text in expected && (first !== expected[text] || rows.length !== 50)) {
                b.wrong = b.wrong || `${text}: ${rows.length} rows, the first ${first}`;
              } else {
                b.shown[text] = { at: now, first, rows: rows.length };
              }
            }
          }
          const gate = document.getElementById('gate-line');
          if (b.gate === null && gate && gate.dataset.state) b.gate = now;
          const figure = document.getElementById('rate-figure');
          if (b.rate === null && figure && figure.dataset.admitted !== undefined) b.rate = now;
          if (b.waiter) b.waiter();
        };
        new MutationObserver(check).observe(document,
          { subtree: true, childList: true, characterData: true, attributes: true });
        document.addEventListener('click', (event) => {
          if (event.target && event.target.id === 'sales-next') b.clicks.push(performance.now());
        }, true);
      })();
      """;

  /**
   * Waits until the pager reads arguments[0] with the right first SKU (and, if arguments[1], the
   * gate's line and the chart are drawn), or a wrong page shows, or 30 s pass; answers what the
   * page shows, as JSON.
   */
  private static final String WAIT =
      """
      const done = arguments[arguments.length - 1];
      const text = arguments[0];
      const whole = arguments[1];
      const b = window.__bench;
      const snapshot = () => {
        const navigation = performance.getEntriesByType('navigation')[0];
        return JSON.stringify({
          shown: b.shown, wrong: b.wrong, gate: b.gate, rate: b.rate, clicks: b.clicks,
          loadEventEnd: navigation ? navigation.loadEventEnd : null,
          domContentLoaded: navigation ? navigation.domContentLoadedEventEnd : null,
          pager: document.getElementById('sales-page').textContent,
          rows: [...document.querySelectorAll('#sales-table tbody tr')].map((tr) => tr.dataset.sku),
          gateState: document.getElementById('gate-line').dataset.state,
          gateLine: document.getElementById('gate-line').textContent,
          admitted: document.getElementById('rate-figure').dataset.admitted,
          refused: document.getElementById('rate-figure').dataset.refused,
          message: document.getElementById('sales-message').textContent,
          rateCaption: document.getElementById('rate-caption').textContent,
          // The first request of each path: when it was sent and when its answer had arrived.
          requests: performance.getEntriesByType('resource').reduce((first, entry) => {
            const path = new URL(entry.name).pathname;
            if (!(path in first)) first[path] = { start: entry.startTime, end: entry.responseEnd };
            return first;
          }, {}),
        });
      };
      const ready = () => b.wrong !== null
        || (text in b.shown && (!whole || (b.gate !== null && b.rate !== null)));
      if (ready()) {
        done(snapshot());
      } else {
        const timer = setTimeout(() => { b.waiter = null; done(snapshot()); }, 30000);
        b.waiter = () => {
          if (ready()) { b.waiter = null; clearTimeout(timer); done(snapshot()); }
        };
      }
      """;

  private DashboardLoadLatency() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_dashboard");
    int skus = run.number("skus", 10_000);
    int ratePerSecond = run.number("ratePerSecond", 100);
    int repeat = run.number("repeat", 20);
    int warmUp = run.number("warmUp", 5);
    Path chromium = Path.of(run.option("chromium", "/usr/bin/chromium"));
    Path chromedriver = Path.of(run.option("chromedriver", "/usr/bin/chromedriver"));
    if (skus < 2 * PAGE) {
      throw new IllegalArgumentException("skus: at least " + 2 * PAGE + " (two full pages)");
    }
    if (!Files.isExecutable(chromium) || !Files.isExecutable(chromedriver)) {
      throw new IllegalStateException(
          "no executable "
              + chromium
              + " and "
              + chromedriver
              + " (Debian: apt-get install chromium chromium-driver)");
    }
    List<String> busiest = busiestOrder(skus);
    int pages = (skus + PAGE - 1) / PAGE;
    run.createDatabase();
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(QuerySideApplication.class).run(run.querySideArguments());
    Path profile = null;
    ChromeDriver browser = null;
    try {
      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      String base = "http://localhost:" + port;
      long started = System.nanoTime();
      long decisions;
      try (Connection connection = run.connect()) {
        decisions = seed(connection, skus, ratePerSecond);
      }
      System.out.printf(
          "seeded %,d SKUs and %,d gate decisions in %.1f s; the busiest: %s%n",
          skus, decisions, (System.nanoTime() - started) / 1e9, busiest.get(0));

      HttpClient http = HttpClient.newHttpClient();
      String firstPage = base + "/api/sales?page=0&size=" + PAGE;
      String lastPage = base + "/api/sales?page=" + (pages - 1) + "&size=" + PAGE;
      String gateState = get(http, base + "/api/gate").path("state").asString();
      System.out.println("gate, as GET /api/gate tells it: " + gateState);

      profile = Files.createTempDirectory("dashboard-bench-chromium");
      browser = startBrowser(chromium, chromedriver, profile);
      browser.manage().timeouts().scriptTimeout(PATIENCE);
      Map<String, String> firstOf = new LinkedHashMap<>();
      firstOf.put("Page 1 of " + pages, busiest.get(0));
      firstOf.put("Page 2 of " + pages, busiest.get(PAGE));
      browser.executeCdpCommand(
          "Page.addScriptToEvaluateOnNewDocument",
          Map.of("source", OBSERVER.replace("EXPECTED", JSON.writeValueAsString(firstOf))));
      browser.executeCdpCommand("Network.enable", Map.of());
      // The token kept for the tab, as the operator's earlier visit left it.
      browser.get(base + "/dashboard/");
      browser.executeScript(
          "sessionStorage.setItem(arguments[0], arguments[1])", TOKEN_KEY, TestTokens.ALL_ROLES);

      String page1 = "Page 1 of " + pages;
      String page2 = "Page 2 of " + pages;
      List<String> expected1 = busiest.subList(0, PAGE);
      List<String> expected2 = busiest.subList(PAGE, 2 * PAGE);
      Map<String, List<Double>> times = new LinkedHashMap<>();
      for (boolean cache : List.of(true, false)) {
        browser.executeCdpCommand("Network.setCacheDisabled", Map.of("cacheDisabled", !cache));
        String suffix = cache ? "" : "-no-cache";
        for (int round = 0; round < warmUp + repeat; round++) {
          boolean timed = round >= warmUp;
          long navigated = System.nanoTime();
          browser.get(base + "/dashboard/");
          JsonNode screen = wait(browser, page1, true);
          double wall = (System.nanoTime() - navigated) / 1e6;
          check(screen, page1, expected1, gateState);
          if (!timed && round == 0) {
            System.out.printf(
                "first round%s (untimed): first screen in %.1f ms (wall), sales table at %.1f ms%n",
                suffix, wall, screen.path("shown").path(page1).path("at").asDouble());
          }
          if (timed) {
            add(times, "browser-first-screen" + suffix, wall);
            add(times, "page-sales-table" + suffix, at(screen.path("shown").path(page1)));
            add(times, "page-gate-line" + suffix, screen.path("gate").asDouble());
            add(times, "page-rate-chart" + suffix, screen.path("rate").asDouble());
            add(times, "page-load-event" + suffix, screen.path("loadEventEnd").asDouble());
            JsonNode requests = screen.path("requests");
            add(times, "page-app.js-loaded" + suffix, end(requests, "/dashboard/app.js"));
            add(times, "page-settings-answered" + suffix, end(requests, "/dashboard/settings"));
            add(times, "page-sales-request-sent" + suffix, start(requests, "/api/sales"));
            add(
                times,
                "page-sales-request" + suffix,
                end(requests, "/api/sales") - start(requests, "/api/sales"));
            add(
                times,
                "page-rate-request" + suffix,
                end(requests, "/api/decisions/rate") - start(requests, "/api/decisions/rate"));
          }
          if (!cache) {
            continue;
          }
          long clicked = System.nanoTime();
          browser.findElement(By.id("sales-next")).click();
          JsonNode next = wait(browser, page2, false);
          double nextWall = (System.nanoTime() - clicked) / 1e6;
          check(next, page2, expected2, null);
          if (timed) {
            add(times, "browser-next-page", nextWall);
            JsonNode clicks = next.path("clicks");
            add(
                times,
                "page-next-page",
                at(next.path("shown").path(page2)) - clicks.get(clicks.size() - 1).asDouble());
          }
        }
      }
      for (Map.Entry<String, List<Double>> entry : times.entrySet()) {
        print(entry.getKey(), entry.getValue());
      }
      System.out.println(
          "SKIPPED last-page-in-browser: the dashboard has no control to jump to a page (only"
              + " Previous and Next page); the last page is timed over HTTP");

      List<String> expectedLast = busiest.subList((pages - 1) * PAGE, skus);
      for (int i = 0; i < warmUp; i++) {
        sales(http, firstPage, expected1, skus);
        sales(http, lastPage, expectedLast, skus);
      }
      time("http-first-page", repeat, () -> sales(http, firstPage, expected1, skus));
      time("http-last-page", repeat, () -> sales(http, lastPage, expectedLast, skus));
      time("http-rate-chart", repeat, () -> get(http, base + "/api/decisions/rate?minutes=5"));
      // The same SQL as the service's (StockLevels.busiest and known, DecisionRates), on a
      // connection of its own: what the HTTP calls add to the database's part.
      String page =
          "select sku_id, total, reserved, sold, per_user_limit, opens_at, closes_at,"
              + " prequeue_seconds, paused, paused_reason, updated_at from stock_level"
              + " where registered_at is not null order by activity desc, sku_id limit "
              + PAGE
              + " offset ";
      try (Connection connection = run.connect()) {
        for (int i = 0; i < warmUp; i++) {
          query(connection, page + 0);
          query(connection, page + (long) (pages - 1) * PAGE);
        }
        time("plain-first-page", repeat, () -> query(connection, page + 0));
        time(
            "plain-last-page(offset)",
            repeat,
            () -> query(connection, page + (long) (pages - 1) * PAGE));
        time(
            "plain-count(*)",
            repeat,
            () ->
                query(
                    connection,
                    "select count(*) from stock_level where registered_at is not null"));
        time(
            "plain-rate-5-minutes",
            repeat,
            () -> {
              long to = System.currentTimeMillis() / 1000 * 1000;
              query(
                  connection,
                  "select decided_at div 1000,"
                      + " sum(case when outcome = 'ADMITTED' then 1 else 0 end),"
                      + " sum(case when outcome = 'REFUSALS_DROPPED' then quantity"
                      + " when outcome in ('ADMITTED', 'WITHDRAWN') then 0 else 1 end)"
                      + " from gate_decision force index (ix_gate_decision_time_outcome)"
                      + " where decided_at >= "
                      + (to - 300_000)
                      + " and decided_at < "
                      + to
                      + " group by decided_at div 1000");
            });
      }
    } finally {
      if (browser != null) {
        browser.quit();
      }
      if (profile != null) {
        try (Stream<Path> files = Files.walk(profile)) {
          files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
      }
      context.close();
      run.dropDatabase();
    }
    System.exit(0);
  }

  /** As DashboardBrowserIntegrationTest starts it: headless, the background networking off. */
  private static ChromeDriver startBrowser(Path chromium, Path chromedriver, Path profile) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
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
            .usingDriverExecutable(chromedriver.toFile())
            .usingAnyFreePort()
            .build();
    return new ChromeDriver(service, options);
  }

  private static JsonNode wait(ChromeDriver browser, String pager, boolean whole) {
    Object answer = ((JavascriptExecutor) browser).executeAsyncScript(WAIT, pager, whole);
    return JSON.readTree((String) answer);
  }

  /** The page shows the expected SKUs, every row, or the run fails. */
  private static void check(JsonNode screen, String pager, List<String> expected, String gate) {
    List<String> rows = new ArrayList<>();
    screen.path("rows").forEach(row -> rows.add(row.asString()));
    boolean drawn =
        gate == null
            || (!screen.path("gateState").asString().isEmpty()
                && !"UNKNOWN".equals(screen.path("gateState").asString())
                && count(screen.path("admitted")) + count(screen.path("refused")) > 0);
    if (!screen.path("wrong").isNull()
        || !screen.path("shown").has(pager)
        || !pager.equals(screen.path("pager").asString())
        || !rows.equals(expected)
        || !drawn) {
      throw new IllegalStateException(
          "the dashboard did not show "
              + pager
              + " with the SKUs "
              + expected.subList(0, 3)
              + "... (the gate "
              + gate
              + ", the chart drawn): it shows "
              + screen);
    }
  }

  /** A count the page keeps as a data attribute (a string), 0 when there is none. */
  private static long count(JsonNode value) {
    String text = value.isNull() || value.isMissingNode() ? "" : value.asString();
    return text.matches("[0-9]+") ? Long.parseLong(text) : 0;
  }

  /** When the page sent its first request of this path (ms since the navigation started). */
  private static double start(JsonNode requests, String path) {
    return request(requests, path).path("start").asDouble();
  }

  /** When the answer to the page's first request of this path had arrived. */
  private static double end(JsonNode requests, String path) {
    return request(requests, path).path("end").asDouble();
  }

  private static JsonNode request(JsonNode requests, String path) {
    if (!requests.has(path)) {
      throw new IllegalStateException("the page sent no request of " + path + ": " + requests);
    }
    return requests.path(path);
  }

  private static double at(JsonNode shown) {
    return shown.path("at").asDouble();
  }

  private static void add(Map<String, List<Double>> times, String name, double millis) {
    times.computeIfAbsent(name, key -> new ArrayList<>()).add(millis);
  }

  /**
   * The SKUs, the busiest first: SKU {@code bench-<n>} has the activity {@code 1 + (n * step) %
   * skus}, a permutation of 1 to skus ({@code step} prime to skus).
   */
  private static List<String> busiestOrder(int skus) {
    List<String> order = new ArrayList<>(Collections.nCopies(skus, (String) null));
    long step = step(skus);
    for (int n = 0; n < skus; n++) {
      int activity = (int) (1 + (n * step) % skus);
      order.set(skus - activity, sku(n));
    }
    return order;
  }

  private static long step(int skus) {
    long step = 7919;
    while (gcd(step, skus) != 1) {
      step += 2;
    }
    return step;
  }

  private static long gcd(long a, long b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  private static String sku(int n) {
    return String.format("bench-%05d", n);
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void time(String name, int times, Call call) throws Exception {
    List<Double> millis = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      long started = System.nanoTime();
      call.run();
      millis.add((System.nanoTime() - started) / 1e6);
    }
    print(name, millis);
  }

  private static void print(String name, List<Double> values) {
    List<Double> millis = new ArrayList<>(values);
    Collections.sort(millis);
    System.out.printf(
        "RESULT %s %.2f %.2f %.2f%n",
        name,
        millis.get((millis.size() - 1) / 2),
        millis.get((int) Math.ceil(0.9 * millis.size()) - 1),
        millis.get(millis.size() - 1));
  }

  private static void query(Connection connection, String sql) throws Exception {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        rows.getString(1);
      }
    }
  }

  private static JsonNode get(HttpClient http, String url) throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + TestTokens.ALL_ROLES)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(
          url + " answered " + answer.statusCode() + ": " + answer.body());
    }
    return JSON.readTree(answer.body());
  }

  /** A page of GET /api/sales, its SKUs (every one) and its total checked. */
  private static void sales(HttpClient http, String url, List<String> expected, int skus)
      throws Exception {
    JsonNode page = get(http, url);
    List<String> answered = new ArrayList<>();
    page.path("skus").forEach(sku -> answered.add(sku.path("skuId").asString()));
    if (!answered.equals(expected) || page.path("totalEntries").asLong() != skus) {
      throw new IllegalStateException(
          url + " answered the wrong SKUs (expected " + expected.subList(0, 3) + "...): " + page);
    }
  }

  /**
   * The SKUs' rows of the read model and the gate's decisions, written by the database from a table
   * of numbers (the values are the driver's). Answers how many decisions.
   */
  private static long seed(Connection connection, int skus, int ratePerSecond) throws Exception {
    long now = System.currentTimeMillis();
    // 5 minutes before the start (the chart's window) to 30 minutes after (the run's length).
    long decisions = (long) ratePerSecond * 35 * 60;
    long needed = Math.max(skus, decisions);
    try (Statement statement = connection.createStatement()) {
      statement.execute("create table bench_digit (d int primary key)");
      statement.execute("insert into bench_digit values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)");
      statement.execute("create table bench_number (n int primary key)");
      StringBuilder number = new StringBuilder("d0.d");
      StringBuilder from = new StringBuilder("bench_digit d0");
      long span = 10;
      for (int digit = 1; span < needed; digit++, span *= 10) {
        number.append(" + ").append(span).append(" * d").append(digit).append(".d");
        from.append(", bench_digit d").append(digit);
      }
      statement.execute(
          "insert into bench_number select "
              + number
              + " from "
              + from
              + " where "
              + number
              + " < "
              + needed);
      // Sales of every state: n % 10 = 0 paused, 1 scheduled (opens in 2 h and n s, a pre-queue
      // of 60 s), 2 closed an hour ago, the others open since registration; available = total -
      // reserved - sold, from 80 to 999; a limit per user but on every third SKU.
      statement.execute(
          "insert into stock_level (sku_id, total, reserved, sold, per_user_limit, opens_at,"
              + " closes_at, prequeue_seconds, paused, paused_reason, activity, registered_at,"
              + " updated_at)"
              + " select concat('bench-', lpad(n, 5, '0')), 100 + n % 900, n % 7, n % 13,"
              + " case when n % 3 = 0 then null else 1 + n % 5 end,"
              + " case when n % 10 = 1 then timestampadd(second, 7200 + n, utc_timestamp(6))"
              + " when n % 10 = 2 then timestampadd(hour, -3, utc_timestamp(6)) end,"
              + " case when n % 10 = 2 then timestampadd(hour, -1, utc_timestamp(6)) end,"
              + " case when n % 10 = 1 then 60 else 0 end,"
              + " n % 10 = 0, case when n % 10 = 0 then 'bench pause' end,"
              + " 1 + (n * "
              + step(skus)
              + ") % "
              + skus
              + ", timestampadd(day, -1, utc_timestamp(6)), utc_timestamp(6)"
              + " from bench_number where n < "
              + skus);
      // ratePerSecond decisions a second on the 100 busiest SKUs, a third of them admitted.
      statement.execute(
          "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
              + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
              + " select concat('bench-', lpad(n % 100, 5, '0')), "
              + (now - 300_000)
              + " + n * 1000 div "
              + ratePerSecond
              + ", n, 0, 1, n + 1, concat('G-', n), concat('u-', n % 50000), 1,"
              + " case when n % 3 = 0 then 'ADMITTED' else 'INSUFFICIENT_STOCK' end, 0"
              + " from bench_number where n < "
              + decisions);
      statement.execute("drop table bench_number");
      statement.execute("drop table bench_digit");
      statement.execute("analyze table stock_level, gate_decision");
    }
    return decisions;
  }
}
