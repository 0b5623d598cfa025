package io.stockade.query.feed;

import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.GeneratedEventStore;
import io.stockade.platform.testing.StrictJson;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.QuerySideApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * Benchmark driver for {@code bench/feed}: how long a page of the event feed takes at the start, in
 * the middle and at the end of an event store of {@code events} events, next to the plain {@code
 * SELECT ... WHERE global_index > ? LIMIT ?} of the same rows in the same run.
 *
 * <ol>
 *   <li>starts the query side on a database of its own (Flyway makes the tables) and stops its
 *       projections, which would otherwise apply the events while the pages are timed;
 *   <li>writes {@code events} events straight into the event table ({@link GeneratedEventStore}:
 *       registrations of 100 SKUs, then reservations, a third confirmed and a third released; its
 *       batched inserts leave holes in the global index, as rolled-back inserts would);
 *   <li>asks, as its first request, for the page after the first stored event that a hole follows
 *       until the page holds an event: what a fresh instance's first hole costs (one round of the
 *       settled horizon; timed apart);
 *   <li>for pages of 100 and of 1000 after position 0, the middle and the last whole page: each
 *       request {@code warmUp} times untimed, then {@code repeat} times over HTTP (JSON included),
 *       in-process ({@link EventFeed#read}, no HTTP) and as the plain SELECT on a connection of its
 *       own, which reads the same columns; and an empty page over HTTP (after the last event), what
 *       any request costs here.
 * </ol>
 *
 * Prints {@code RESULT <way>-<where>-<limit> <median ms> <p90 ms> <max ms>} for each, ways {@code
 * http}, {@code feed} and {@code sql}, and {@code RESULT http-empty ...}. Options as key=value:
 * host, port, user, password (the MariaDB: 127.0.0.1, 3306, root, empty), database
 * (stockade_bench_feed), redisHost, redisPort (127.0.0.1, 6379; the query side connects to Redis,
 * nothing here reads it), events (1000000), repeat (20), warmUp (50), keep (false: drop the
 * database at the end).
 */
public final class FeedPageLatency {

  private static final String PLAIN =
      "select global_index, type, aggregate_identifier, payload_type, time_stamp, payload"
          + " from domain_event_entry where global_index > ? limit ?";

  private FeedPageLatency() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_feed");
    int events = run.number("events", 1_000_000);
    int repeat = run.number("repeat", 20);
    int warmUp = run.number("warmUp", 50);
    run.createDatabase();
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(QuerySideApplication.class).run(run.querySideArguments());
    try {
      EventProcessingConfiguration processing = context.getBean(EventProcessingConfiguration.class);
      for (String name : List.of("stock-projection", "reservation-projection")) {
        processing.eventProcessor(name, StreamingEventProcessor.class).orElseThrow().shutDown();
      }
      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      long started = System.nanoTime();
      try (Connection connection = run.connect()) {
        GeneratedEventStore.write(connection, events, 100);
      }
      long first;
      long last;
      long stored;
      try (Connection connection = run.connect();
          Statement statement = connection.createStatement();
          ResultSet range =
              statement.executeQuery(
                  "select min(global_index), max(global_index), count(*) from domain_event_entry")) {
        range.next();
        first = range.getLong(1);
        last = range.getLong(2);
        stored = range.getLong(3);
      }
      System.out.printf(
          "wrote %,d events in %.1f s: positions %d to %d, %,d holes%n",
          stored, (System.nanoTime() - started) / 1e9, first, last, last - first + 1 - stored);

      HttpClient http = HttpClient.newHttpClient();
      String base = "http://localhost:" + port + "/api/events";
      // The first request of this instance: a page that begins at a hole, which it passes once
      // its horizon has settled the hole (one round).
      long hole;
      try (Connection connection = run.connect();
          Statement statement = connection.createStatement();
          ResultSet found =
              statement.executeQuery(
                  "select a.global_index from domain_event_entry a left join domain_event_entry b"
                      + " on b.global_index = a.global_index + 1 where b.global_index is null"
                      + " and a.global_index < "
                      + last
                      + " order by a.global_index limit 1")) {
        hole = found.next() ? found.getLong(1) : -1;
      }
      if (hole > 0) {
        long waited = System.nanoTime();
        while (StrictJson.read(call(http, base + "?after=" + hole + "&limit=1"))
            .get("events")
            .isEmpty()) {
          Thread.sleep(10);
        }
        System.out.printf(
            "RESULT first-page-across-a-hole %.2f 0 0%n", (System.nanoTime() - waited) / 1e6);
      }

      // What any request costs over HTTP here (token, filters, JSON): a page after the last event.
      Call empty = () -> check(StrictJson.read(call(http, base + "?after=" + last)), 0);
      for (int i = 0; i < warmUp; i++) {
        empty.run();
      }
      time("http-empty", repeat, empty);

      EventFeed feed = context.getBean(EventFeed.class);
      try (Connection connection = run.connect();
          PreparedStatement plain = connection.prepareStatement(PLAIN)) {
        for (int limit : List.of(100, 1000)) {
          // The middle and the last whole page, after a position that is stored.
          long middle = position(connection, stored / 2);
          long end = position(connection, stored - limit - 1);
          for (String where : List.of("start", "middle", "end")) {
            long after = where.equals("start") ? 0 : where.equals("middle") ? middle : end;
            String url = base + "?after=" + after + "&limit=" + limit;
            int expected = limit;
            Call overHttp = () -> check(StrictJson.read(call(http, url)), expected);
            Call inProcess = () -> check(feed.read(after, expected), expected);
            Call sql = () -> plain(plain, after, expected);
            for (int i = 0; i < warmUp; i++) {
              overHttp.run();
              inProcess.run();
              sql.run();
            }
            time("http-" + where + "-" + limit, repeat, overHttp);
            time("feed-" + where + "-" + limit, repeat, inProcess);
            time("sql-" + where + "-" + limit, repeat, sql);
          }
        }
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
        "RESULT %s %.3f %.3f %.3f%n",
        name,
        millis.get((millis.size() - 1) / 2),
        millis.get((int) Math.ceil(0.9 * millis.size()) - 1),
        millis.get(millis.size() - 1));
  }

  private static String call(HttpClient http, String url) throws Exception {
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
    return answer.body();
  }

  private static void check(JsonNode page, int expected) {
    if (page.get("events").size() != expected) {
      throw new IllegalStateException("a page of " + page.get("events").size() + " events");
    }
  }

  private static void check(FeedPage page, int expected) {
    if (page.events().size() != expected) {
      throw new IllegalStateException("a page of " + page.events().size() + " events");
    }
  }

  /** Reads every column of the page's rows, as a reader of the table at least must. */
  private static void plain(PreparedStatement plain, long after, int limit) throws Exception {
    plain.setLong(1, after);
    plain.setInt(2, limit);
    int rows = 0;
    long bytes = 0;
    try (ResultSet rs = plain.executeQuery()) {
      while (rs.next()) {
        rows++;
        bytes += rs.getLong(1) + rs.getString(2).length() + rs.getString(3).length();
        bytes += rs.getString(4).length() + rs.getString(5).length() + rs.getBytes(6).length;
      }
    }
    if (rows != limit || bytes == 0) {
      throw new IllegalStateException("the plain SELECT read " + rows + " rows");
    }
  }

  /** The global index of the {@code n}-th stored event (from 0). */
  private static long position(Connection connection, long n) throws Exception {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "select global_index from domain_event_entry order by global_index limit 1 offset ?")) {
      statement.setLong(1, n);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
