package io.stockade.query.replay;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.springboot.TokenStoreProperties;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The projections' segments as the token store that every instance shares holds them: who claims
 * each one. Read without claiming anything, so any instance can ask, whichever segments it
 * processes itself.
 */
@Component
class TokenEntries {

  private final JdbcTemplate jdbc;
  private final Duration claimTimeout;

  TokenEntries(JdbcTemplate jdbc, TokenStoreProperties tokenStore) {
    this.jdbc = jdbc;
    this.claimTimeout = tokenStore.getClaimTimeout();
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

  /** The claim's time as Axon writes it; an unreadable one counts as a live claim. */
  private static Instant claimedSince(String timestamp) {
    try {
      return Instant.parse(timestamp);
    } catch (DateTimeParseException unreadable) {
      return Instant.MAX;
    }
  }
}
