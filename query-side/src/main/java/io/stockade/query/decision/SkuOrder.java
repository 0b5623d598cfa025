package io.stockade.query.decision;

import io.stockade.query.decision.DecisionMarks.Mark;
import io.stockade.query.decision.GateDecisions.Stream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A SKU's decisions as one read sees them: its streams and their marks (see {@link DecisionMarks}),
 * from which it counts the SKU's rows before any instant and finds where the n-th of them lies,
 * reading only rows between a mark and the instant asked for (at most about an interval's per
 * stream). Counts are remembered for the read; the read's transaction sees one snapshot.
 */
final class SkuOrder {

  /**
   * Where the n-th row of the SKU lies: the {@code offset}-th of those decided at {@code at} or
   * later.
   */
  record Place(long at, long offset) {}

  private final String skuId;
  private final GateDecisions decisions;
  private final List<StreamMarks> streams = new ArrayList<>();
  private final Map<Long, Long> before = new HashMap<>();
  private final List<Stream> toExtend = new ArrayList<>();

  SkuOrder(
      String skuId, List<Stream> found, List<Mark> marks, GateDecisions decisions, int interval) {
    this.skuId = skuId;
    this.decisions = decisions;
    Map<List<Long>, List<Mark>> byStream = new HashMap<>();
    for (Mark mark : marks) {
      byStream
          .computeIfAbsent(List.of((long) mark.partition(), mark.epoch()), k -> new ArrayList<>())
          .add(mark);
    }
    for (Stream stream : found) {
      List<Mark> own = byStream.remove(List.of((long) stream.partition(), stream.epoch()));
      StreamMarks positions = new StreamMarks(stream, own == null ? List.of() : own);
      streams.add(positions);
      // More than two intervals' rows after the last usable mark, or marks the retention left
      // behind: extend (and delete those) before answering.
      long from = positions.size() == 0 ? stream.oldest() : positions.at[positions.size() - 1];
      if ((own != null && own.size() > positions.size())
          || decisions.countUpTo(skuId, stream, from, 2L * interval + 1) > 2L * interval) {
        toExtend.add(stream);
      }
    }
    // Marks of a stream without rows (the retention took them all): to delete.
    byStream.values().stream()
        .map(left -> left.get(0))
        .forEach(mark -> toExtend.add(new Stream(mark.partition(), mark.epoch(), 0)));
  }

  /** The streams whose marks should be extended (or deleted) before counting. */
  List<Stream> toExtend() {
    return toExtend;
  }

  boolean empty() {
    return streams.isEmpty();
  }

  /** The SKU's rows decided before {@code t} ({@link Long#MAX_VALUE}: all). */
  long before(long t) {
    Long known = before.get(t);
    if (known != null) {
      return known;
    }
    long sum = 0;
    for (StreamMarks stream : streams) {
      sum += stream.before(t);
    }
    before.put(t, sum);
    return sum;
  }

  /**
   * Where the SKU's {@code n}-th row (from 0, in the SKU's order) lies, given that it is decided at
   * {@code from} or later: at the latest mark (or {@code from}) that has at most n rows before it.
   * The offset from there is at most about an interval's rows per stream.
   */
  Place place(long n, long from, long to) {
    TreeSet<Long> times = new TreeSet<>();
    for (StreamMarks stream : streams) {
      for (int i = 0; i < stream.size(); i++) {
        if (stream.at[i] > from && stream.at[i] < to) {
          times.add(stream.at[i]);
        }
      }
    }
    long[] candidates = new long[times.size() + 1];
    candidates[0] = from;
    int c = 1;
    for (long time : times) {
      candidates[c++] = time;
    }
    int low = 0;
    int high = candidates.length - 1;
    while (low < high) {
      int middle = (low + high + 1) >>> 1;
      if (before(candidates[middle]) <= n) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return new Place(candidates[low], n - before(candidates[low]));
  }

  /** One stream's usable marks: those after its oldest row, in time order. */
  private final class StreamMarks {

    private final Stream stream;
    private final long[] at;
    private final long[] position;
    private Long base;
    private Long tail;

    StreamMarks(Stream stream, List<Mark> marks) {
      this.stream = stream;
      List<Mark> usable = marks.stream().filter(mark -> mark.at() > stream.oldest()).toList();
      at = new long[usable.size()];
      position = new long[usable.size()];
      for (int i = 0; i < usable.size(); i++) {
        at[i] = usable.get(i).at();
        position[i] = usable.get(i).position();
      }
    }

    int size() {
      return at.length;
    }

    /** The stream's rows decided before {@code t}. */
    long before(long t) {
      if (t <= stream.oldest()) {
        return 0;
      }
      int i = Arrays.binarySearch(at, t);
      int mark = i >= 0 ? i : -i - 2;
      if (mark < 0) {
        return decisions.count(skuId, stream, stream.oldest(), t);
      }
      long upToMark = base() + position[mark] - position[0];
      if (at[mark] == t) {
        return upToMark;
      }
      if (mark == size() - 1 && t == Long.MAX_VALUE) {
        if (tail == null) {
          tail = decisions.count(skuId, stream, at[mark], t);
        }
        return upToMark + tail;
      }
      return upToMark + decisions.count(skuId, stream, at[mark], t);
    }

    /** Rows before the first usable mark: from the oldest row, fewer than about an interval. */
    private long base() {
      if (base == null) {
        base = decisions.count(skuId, stream, stream.oldest(), at[0]);
      }
      return base;
    }
  }
}
