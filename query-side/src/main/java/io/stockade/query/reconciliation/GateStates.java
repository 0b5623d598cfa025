package io.stockade.query.reconciliation;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * The admission gate's own state as the operator sees it: OPEN, REBUILDING or CLOSED and why, read
 * from the partitions' markers in Redis ({@code stockade:{<t>}:gate}, see {@link
 * io.stockade.gatekeys.PartitionKeys#marker()}), as {@link GateReader#markerState} judges them.
 * Redis that cannot be reached is a CLOSED gate, not an error: the command side admits nothing then
 * either.
 *
 * <p>The partitions found are remembered, so that an open gate is read by name (a few HGETALLs),
 * and only a gate that no longer reads as open is looked for again by a SCAN of the markers. The
 * markers alone do not show the moments the command side holds the gate closed before it touches
 * Redis (a rebuild claimed in the database, a restarted Redis not trusted yet): until it closes the
 * markers, this says OPEN, and its health component tells more.
 */
@Component
class GateStates {

  /** What {@code GET /api/gate} answers. */
  record GateState(
      @Schema(allowableValues = {OPEN, REBUILDING, CLOSED}) String state,
      @Schema(nullable = true, description = "why the gate is not open; null when it is")
          String reason,
      @Schema(
              nullable = true,
              description =
                  "the epoch the markers are open in, or the one a rebuild is building; null when"
                      + " not known")
          Long epoch,
      @Schema(description = "the partitions' markers found in Redis") int partitions,
      Instant checkedAt) {}

  static final String OPEN = "OPEN";
  static final String REBUILDING = "REBUILDING";
  static final String CLOSED = "CLOSED";

  private final GateReader reader;
  private final Clock clock;

  /** The tags of the partitions of the gate last seen open; empty: find them by a SCAN. */
  private volatile List<String> openTags = List.of();

  GateStates(GateReader reader, Clock clock) {
    this.reader = reader;
    this.clock = clock;
  }

  GateState read() {
    Map<String, Map<String, String>> markers;
    try {
      markers = markers();
    } catch (DataAccessException e) {
      openTags = List.of();
      return new GateState(
          CLOSED,
          "Redis cannot be reached: " + NestedExceptionUtils.getMostSpecificCause(e).getMessage(),
          null,
          0,
          clock.instant());
    }
    List<Map<String, String>> found = List.copyOf(markers.values());
    String state = GateReader.markerState(found);
    openTags = GateReader.OPEN.equals(state) ? List.copyOf(markers.keySet()) : List.of();
    Long epoch = epoch(found);
    Instant now = clock.instant();
    if (GateReader.OPEN.equals(state)) {
      return new GateState(OPEN, null, epoch, found.size(), now);
    }
    if (GateReader.REBUILDING.equals(state)) {
      return new GateState(
          REBUILDING,
          "a command-side instance is rebuilding the gate from the event store; reservations are"
              + " answered 503 until it opens",
          building(found),
          found.size(),
          now);
    }
    String reason =
        found.isEmpty()
            ? "Redis holds no gate (it lost its data, or no command side has built it yet): a"
                + " command-side instance rebuilds it from the event store"
            : "the partitions' markers are missing or disagree ("
                + found.size()
                + " found): Redis lost part of the gate, which a command-side instance rebuilds";
    return new GateState(CLOSED, reason, epoch, found.size(), now);
  }

  private Map<String, Map<String, String>> markers() {
    List<String> tags = openTags;
    if (!tags.isEmpty()) {
      Map<String, Map<String, String>> known = reader.markersOf(tags);
      if (GateReader.OPEN.equals(GateReader.markerState(List.copyOf(known.values())))) {
        return known;
      }
    }
    return reader.markers();
  }

  /** The epoch every open marker holds, when they agree; else null. */
  private static Long epoch(List<Map<String, String>> markers) {
    List<String> epochs = markers.stream().map(marker -> marker.get("epoch")).distinct().toList();
    return epochs.size() == 1 ? number(epochs.get(0)) : null;
  }

  /** The epoch a rebuild is building, as its markers say. */
  private static Long building(List<Map<String, String>> markers) {
    return markers.stream()
        .map(marker -> number(marker.get("building")))
        .filter(epoch -> epoch != null)
        .findFirst()
        .orElse(null);
  }

  private static Long number(String value) {
    if (value == null) {
      return null;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException notANumber) {
      return null;
    }
  }
}
