package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.axonframework.eventsourcing.eventstore.EventStoreException;
import org.hibernate.exception.GenericJDBCException;
import org.junit.jupiter.api.Test;

/**
 * Which JDBC failures are an outage (503 with Retry-After) and which are the catch-all's 500: the
 * ones a database stopped under load produced (one answered 500 in a full run before the pool's
 * closed connection was known here).
 */
class EventStoreOutageTest {

  private final EventStoreOutage outage = new EventStoreOutage();

  @Test
  void aConnectionThePoolClosedUnderAStatementIsAnOutage() {
    var failure =
        new GenericJDBCException(
            "Could not prepare statement [Connection is closed]",
            new SQLException("Connection is closed"));

    var answer = outage.failed(new EventStoreException("reading the stream", failure));

    assertThat(answer.getStatusCode().value()).isEqualTo(503);
    assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
    assertThat(answer.getBody().getType().toString()).endsWith("/event-store-unavailable");
  }

  @Test
  void aFailureOfConnectionStateClassIsAnOutage() {
    var answer = outage.failed(new SQLException("Socket closed", "08000"));

    assertThat(answer.getStatusCode().value()).isEqualTo(503);
  }

  @Test
  void anyOtherJdbcFailureIsTheCatchAlls500() {
    var answer =
        outage.failed(
            new GenericJDBCException(
                "could not execute statement", new SQLException("expiry row refused", "45000")));

    assertThat(answer.getStatusCode().value()).isEqualTo(500);
    assertThat(answer.getBody().getType().toString()).endsWith("/internal-error");
  }
}
