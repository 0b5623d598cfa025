package io.stockade.query.decision;

import static io.stockade.query.decision.GateDecisionRows.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.ApiClient;
import io.stockade.query.decision.GateDecisionRows.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A SKU's pages read through the marks of its streams agree with its rows sorted in the SKU's
 * order, whatever the page, its size and window: for a SKU in four streams (three buckets, one of
 * them in two epochs) with many decisions in one millisecond, then after the retention took its
 * oldest rows (part of a millisecond among them), its streams grew (one lagging behind the others,
 * so that its rows land among theirs), a new stream came, and one stream lost every row. Marks
 * every 4 rows, so that every stream has many.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "stockade.decisions.mark-interval=4")
class DecisionMarksIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String sku;
  private final Random random = new Random(20261130);
  private final Map<String, Long> nextEntry = new HashMap<>();
  private long sequence;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    sku = "marked-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void pagesThroughTheMarksAreTheSkusRowsInOrderAsItsStreamsGrowAndAgeOut() {
    List<Row> rows = new ArrayList<>();
    rows.addAll(stream(0, 1, T0, T0 + 300, 150));
    rows.addAll(stream(1, 1, T0, T0 + 300, 120));
    rows.addAll(stream(2, 1, T0, T0 + 200, 60));
    rows.addAll(stream(0, 2, T0 + 300, T0 + 400, 40));
    GateDecisionRows.insert(jdbc, rows);

    agree(rows);
    assertThat(marks()).as("marks written").isGreaterThan(50);

    // The retention: the SKU's oldest rows, up to the middle of a millisecond.
    List<Row> sorted = rows.stream().sorted(GateDecisionRows.SKU_ORDER).toList();
    int cut = 97;
    while (sorted.get(cut - 1).decidedAt() != sorted.get(cut).decidedAt()) {
      cut++;
    }
    List<Row> gone = new ArrayList<>(sorted.subList(0, cut));
    for (Row row : gone) {
      jdbc.update(
          "delete from gate_decision where sku_id = ? and decided_at = ? and entry_seq = ?"
              + " and gate_partition = ? and epoch = ?",
          sku,
          row.decidedAt(),
          row.entrySeq(),
          row.partition(),
          row.epoch());
    }
    rows.removeAll(gone);
    // Bucket 2 lags behind: its new rows come after its own, among the others' older ones; a new
    // bucket's stream starts in the middle too.
    List<Row> more = new ArrayList<>();
    more.addAll(stream(2, 1, T0 + 200, T0 + 320, 50));
    more.addAll(stream(0, 2, T0 + 400, T0 + 450, 30));
    more.addAll(stream(3, 2, T0 + 250, T0 + 450, 45));
    GateDecisionRows.insert(jdbc, more);
    rows.addAll(more);

    agree(rows);

    // A stream the retention took whole: its marks go.
    jdbc.update(
        "delete from gate_decision where sku_id = ? and gate_partition = 1 and epoch = 1", sku);
    rows.removeIf(row -> row.partition() == 1 && row.epoch() == 1);

    agree(rows);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from gate_decision_mark"
                    + " where sku_id = ? and gate_partition = 1 and epoch = 1",
                Long.class,
                sku))
        .isZero();
    assertThat(
            jdbc.queryForObject(
                "select count(*) from gate_decision_mark m where sku_id = ? and decided_at <= ("
                    + "select min(decided_at) from gate_decision d where d.sku_id = m.sku_id"
                    + " and d.gate_partition = m.gate_partition and d.epoch = m.epoch)",
                Long.class,
                sku))
        .as("marks at or before their stream's oldest row")
        .isZero();
  }

  /** Every page the checks ask for is the slice of the sorted rows it should be. */
  private void agree(List<Row> rows) {
    List<Row> sorted = rows.stream().sorted(GateDecisionRows.SKU_ORDER).toList();
    long first = sorted.get(0).decidedAt();
    long last = sorted.get(sorted.size() - 1).decidedAt();
    List<long[]> windows = new ArrayList<>();
    windows.add(new long[] {Long.MIN_VALUE, Long.MAX_VALUE});
    for (int i = 0; i < 4; i++) {
      long a = first - 5 + random.nextInt((int) (last - first) + 10);
      long b = first - 5 + random.nextInt((int) (last - first) + 10);
      windows.add(new long[] {Math.min(a, b), Math.max(a, b)});
    }
    for (long[] window : windows) {
      List<Row> expected =
          sorted.stream()
              .filter(row -> row.decidedAt() >= window[0] && row.decidedAt() < window[1])
              .toList();
      for (int size : new int[] {1, 3, 7, 50}) {
        int pages = (expected.size() + size - 1) / size;
        List<Integer> asked = new ArrayList<>(List.of(0, 1, Math.max(0, pages - 1), pages));
        for (int i = 0; i < 4 && pages > 0; i++) {
          asked.add(random.nextInt(pages));
        }
        for (int page : asked) {
          JsonNode body = get(window, "size=" + size + "&page=" + page);
          assertThat(body.get("total").asLong())
              .as("total of %s", describe(window))
              .isEqualTo(expected.size());
          List<Long> want =
              expected
                  .subList(
                      Math.min(expected.size(), page * size),
                      Math.min(expected.size(), (page + 1) * size))
                  .stream()
                  .map(Row::sequence)
                  .toList();
          assertThat(sequences(body))
              .as("page %d of %d in %s", page, size, describe(window))
              .containsExactlyElementsOf(want);
        }
      }
      int soldOut = -1;
      for (int i = 0; i < expected.size() && soldOut < 0; i++) {
        if (expected.get(i).availableAfter() == 0) {
          soldOut = i;
        }
      }
      JsonNode around = get(window, "size=7&around=sellout");
      if (soldOut < 0) {
        assertThat(around.get("sellout").isNull()).isTrue();
      } else {
        assertThat(around.get("sellout").asLong())
            .as("sell-out in %s", describe(window))
            .isEqualTo(soldOut);
        assertThat(around.get("page").asLong()).isEqualTo(soldOut / 7);
        assertThat(sequences(around)).contains(expected.get(soldOut).sequence());
      }
    }
  }

  /**
   * {@code count} rows of one stream between two times, in its order: several in some milliseconds,
   * and now and then a row that left nothing available.
   */
  private List<Row> stream(int partition, long epoch, long from, long to, int count) {
    List<Row> rows = new ArrayList<>();
    String key = partition + "/" + epoch;
    long at = from;
    for (int i = 0; i < count; i++) {
      at = Math.min(to - 1, at + (random.nextInt(3) == 0 ? 0 : random.nextInt(4)));
      long entry = nextEntry.merge(key, 1L, Long::sum);
      long available = random.nextInt(25) == 0 ? 0 : 1 + random.nextInt(9);
      long s = ++sequence;
      rows.add(
          new Row(
              sku,
              at,
              entry,
              partition,
              epoch,
              s,
              "O-" + s,
              "u-" + s % 13,
              1,
              "ADMITTED",
              available));
    }
    return rows;
  }

  private JsonNode get(long[] window, String query) {
    StringBuilder path = new StringBuilder("/api/audit/skus/" + sku + "/decisions?" + query);
    if (window[0] != Long.MIN_VALUE) {
      path.append("&from=").append(Instant.ofEpochMilli(window[0]));
    }
    if (window[1] != Long.MAX_VALUE) {
      path.append("&to=").append(Instant.ofEpochMilli(window[1]));
    }
    ResponseEntity<JsonNode> answer = http.get(path.toString());
    assertThat(answer.getStatusCode().value()).as(path + " " + answer.getBody()).isEqualTo(200);
    return answer.getBody();
  }

  private long marks() {
    return jdbc.queryForObject(
        "select count(*) from gate_decision_mark where sku_id = ?", Long.class, sku);
  }

  private static String describe(long[] window) {
    return "[" + window[0] + ", " + window[1] + ")";
  }

  private static List<Long> sequences(JsonNode body) {
    return StreamSupport.stream(body.get("decisions").spliterator(), false)
        .map(decision -> decision.get("sequence").asLong())
        .toList();
  }
}
