package io.stockade.query.replay;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.axonframework.springboot.TokenStoreProperties;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The projections' segments as the token store that every instance shares holds them: where each
 * one is, and who claims it. Read without claiming anything, so any instance can ask, whichever
 * segments it processes itself.
 */
@Component
class TokenEntries {

  private final JdbcTemplate jdbc;
  private final Serializer serializer;
  private final Duration claimTimeout;

  TokenEntries(JdbcTemplate jdbc, Serializer serializer, TokenStoreProperties tokenStore) {
    this.jdbc = jdbc;
    this.serializer = serializer;
    this.claimTimeout = tokenStore.getClaimTimeout();
  }

  /**
   * The lowest position any segment of these processors has reached (0 for a segment that has
   * handled nothing since a reset); empty while one of them has no segment at all.
   */
  OptionalLong lowestPosition(List<String> processors) {
    long lowest = Long.MAX_VALUE;
    for (String processor : processors) {
      List<Long> positions =
          jdbc.query(
              "select token, token_type from token_entry where processor_name = ?",
              (rs, rowNum) -> position(rs.getBytes("token"), rs.getString("token_type")),
              processor);
      if (positions.isEmpty()) {
        return OptionalLong.empty();
      }
      lowest = Math.min(lowest, Collections.min(positions));
    }
    return OptionalLong.of(lowest == Long.MAX_VALUE ? 0 : lowest);
  }

  /**
   * The segments of these processors that an instance other than {@code node} still claims (its
   * claim younger than the token store's claim timeout), as {@code processor/segment by owner}.
   */
  List<String> claimedByOthers(List<String> processors, String node) {
    Instant expired = Instant.now().minus(claimTimeout);
    List<String> claimed = new ArrayList<>();
    for (String processor : processors) {
      jdbc.query(
          "select segment, owner, timestamp from token_entry"
              + " where processor_name = ? and owner is not null and owner <> ?",
          rs -> {
            if (claimedSince(rs.getString("timestamp")).isAfter(expired)) {
              claimed.add(processor + "/" + rs.getInt("segment") + " by " + rs.getString("owner"));
            }
          },
          processor,
          node);
    }
    return claimed;
  }

  Duration claimTimeout() {
    return claimTimeout;
  }

  private long position(byte[] token, String type) {
    if (token == null) {
      return 0;
    }
    TrackingToken tracking =
        serializer.deserialize(new SimpleSerializedObject<>(token, byte[].class, type, null));
    // A ReplayToken's position is that of the token it replays with; none before its first event.
    return tracking == null ? 0 : tracking.position().orElse(0);
  }

  /** The claim's time as Axon writes it; an unreadable one counts as a live claim. */
  private static Instant claimedSince(String timestamp) {
    try {
      return Instant.parse(timestamp);
    } catch (DateTimeParseException unreadable) {
      return Instant.MAX;
    }
  }
}
