package io.stockade.query.decision;

import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.QuerySideApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Benchmark driver for {@code bench/decisions}: how long the query side takes to answer a page of a
 * SKU's gate decisions over HTTP when the SKU has {@code decisions} of them, for the first page, a
 * middle page, the last page, a page of a from/to window, the page around the sell-out and a user's
 * decisions; next to the plain {@code COUNT(*)} and {@code LIMIT ... OFFSET} a page would cost
 * without the marks.
 *
 * <ol>
 *   <li>starts the query side on a database of its own (Flyway makes the tables, the index and the
 *       marks' tables), its reconciliation schedule off;
 *   <li>writes, with {@code INSERT ... SELECT} from a table of numbers, {@code decisions} rows of
 *       one SKU ({@code bench-hot}) in {@code buckets} buckets, 20 decisions a millisecond (ties
 *       broken by the entry's sequence), its first {@code stock} decisions admitted and the others
 *       refused, over 50,000 users; and 200,000 rows of 100 other SKUs by the same users;
 *   <li>asks for a first page of the SKU once (which writes its marks: timed apart), then each
 *       request {@code repeat} times, and the plain SQL {@code repeat} times on its own connection.
 * </ol>
 *
 * Prints {@code RESULT <name> <median ms> <p90 ms> <max ms>} per request (wall time of the HTTP
 * call, JSON included). Options as key=value: host, port, user, password (the MariaDB: 127.0.0.1,
 * 3306, root, empty), database (stockade_bench_decisions), redisHost, redisPort (127.0.0.1, 6379;
 * the query side connects to Redis, but nothing here reads it), decisions (1000000), buckets (1),
 * stock (1000), repeat (20), warmUp (50: each request this many times, untimed, before any is
 * timed), keep (false: drop the database at the end).
 */
public final class DecisionPagesLatency {

  private static final String SKU = "bench-hot";
  private static final long T0 = 1_796_032_800_000L;
  private static final int USERS = 50_000;
  private static final int OTHER_ROWS = 200_000;

  private DecisionPagesLatency() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_decisions");
    int decisions = run.number("decisions", 1_000_000);
    int buckets = run.number("buckets", 1);
    int stock = run.number("stock", 1000);
    int repeat = run.number("repeat", 20);
    int warmUp = run.number("warmUp", 50);
    run.createDatabase();
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(QuerySideApplication.class).run(run.querySideArguments());
    try {
      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      long started = System.nanoTime();
      try (Connection connection = run.connect()) {
        seed(connection, decisions, buckets, stock);
      }
      System.out.printf(
          "seeded %,d decisions of %s in %d buckets and %,d of other SKUs in %.1f s%n",
          decisions, SKU, buckets, OTHER_ROWS, (System.nanoTime() - started) / 1e9);

      HttpClient http = HttpClient.newHttpClient();
      String base = "http://localhost:" + port + "/api/audit/";
      int size = 100;
      int pages = (decisions + size - 1) / size;
      String sku = base + "skus/" + SKU + "/decisions?size=" + size;
      long first = T0;
      long last = T0 + (decisions - 1) / 20;
      String window =
          "&from="
              + Instant.ofEpochMilli(first + (last - first) / 4)
              + "&to="
              + Instant.ofEpochMilli(first + 3 * (last - first) / 4);
      time("first-read(writes-marks)", 1, () -> call(http, sku + "&page=0"));
      List<String> requests =
          List.of(
              "first-page",
              sku + "&page=0",
              "middle-page",
              sku + "&page=" + pages / 2,
              "last-page",
              sku + "&page=" + (pages - 1),
              "from-to-page",
              sku + window + "&page=" + pages / 4,
              "around-sellout",
              sku + "&around=sellout",
              "user-page",
              base + "users/u-4242/decisions");
      // A JVM that has not compiled the path yet measures the compiler: every request warmUp
      // times first, untimed.
      for (int i = 0; i < warmUp; i++) {
        for (int r = 1; r < requests.size(); r += 2) {
          call(http, requests.get(r));
        }
      }
      for (int r = 0; r < requests.size(); r += 2) {
        String url = requests.get(r + 1);
        time(requests.get(r), repeat, () -> call(http, url));
      }
      try (Connection connection = run.connect()) {
        time(
            "plain-count(*)",
            repeat,
            () ->
                query(
                    connection, "select count(*) from gate_decision where sku_id = '" + SKU + "'"));
        time(
            "plain-last-page(offset)",
            repeat,
            () ->
                query(
                    connection,
                    "select sequence, decided_at, reservation_id, user_id, quantity, outcome,"
                        + " available_after, gate_partition from gate_decision where sku_id = '"
                        + SKU
                        + "' order by decided_at, entry_seq, gate_partition, epoch limit "
                        + size
                        + " offset "
                        + (long) (pages - 1) * size));
      }
      try (Connection connection = run.connect();
          Statement statement = connection.createStatement();
          ResultSet marks =
              statement.executeQuery(
                  "select count(*) from gate_decision_mark where sku_id = '" + SKU + "'")) {
        marks.next();
        System.out.println("marks of " + SKU + ": " + marks.getLong(1));
      }
    } finally {
      context.close();
      run.dropDatabase();
    }
    System.exit(0);
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
    Collections.sort(millis);
    System.out.printf(
        "RESULT %s %.2f %.2f %.2f%n",
        name,
        millis.get((millis.size() - 1) / 2),
        millis.get((int) Math.ceil(0.9 * millis.size()) - 1),
        millis.get(millis.size() - 1));
  }

  private static void call(HttpClient http, String url) throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + TestTokens.ALL_ROLES)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200 || !answer.body().contains("\"decisions\":[{")) {
      throw new IllegalStateException(
          url + " answered " + answer.statusCode() + ": " + answer.body());
    }
  }

  private static void query(Connection connection, String sql) throws Exception {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        rows.getLong(1);
      }
    }
  }

  /** The rows, written by the database from a table of numbers (the values are the driver's). */
  private static void seed(Connection connection, int decisions, int buckets, int stock)
      throws Exception {
    try (Statement statement = connection.createStatement()) {
      statement.execute("create table bench_digit (d int primary key)");
      statement.execute("insert into bench_digit values (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)");
      statement.execute("create table bench_number (n int primary key)");
      int needed = Math.max(decisions, OTHER_ROWS);
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
      int perBucket = stock / buckets;
      // Bucket n % buckets, its i-th decision i = n div buckets; 20 decisions a millisecond.
      statement.execute(
          "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
              + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
              + " select '"
              + SKU
              + "', "
              + T0
              + " + n div 20, n div "
              + buckets
              + ", n % "
              + buckets
              + ", 1, n div "
              + buckets
              + " + 1, concat('O-', n), concat('u-', n % "
              + USERS
              + "), 1,"
              + " case when n div "
              + buckets
              + " < "
              + perBucket
              + " then 'ADMITTED' when n % 10 = 0 then 'PURCHASE_LIMIT_EXCEEDED'"
              + " else 'INSUFFICIENT_STOCK' end,"
              + " greatest(0, "
              + perBucket
              + " - cast(n div "
              + buckets
              + " as signed) - 1)"
              + " from bench_number where n < "
              + decisions);
      statement.execute(
          "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
              + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
              + " select concat('bench-sku-', n % 100), "
              + T0
              + " + n div 4, n, 0, 1, n div 100 + 1, concat('P-', n), concat('u-', (n * 7) % "
              + USERS
              + "), 1, 'ADMITTED', 5 from bench_number where n < "
              + OTHER_ROWS);
      statement.execute("drop table bench_number");
      statement.execute("drop table bench_digit");
      statement.execute("analyze table gate_decision");
    }
  }
}
