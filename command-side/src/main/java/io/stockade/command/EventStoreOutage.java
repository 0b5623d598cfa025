package io.stockade.command;

import io.stockade.platform.web.ProblemException;
import io.stockade.platform.web.ProblemResponses;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Every command answers 503 {@code event-store-unavailable} with {@code Retry-After} when the
 * database cannot be reached, never the catch-all's 500. Each command is the event first, in one
 * transaction (what else it writes to the database is in that transaction too), and the gate after:
 * a command that failed here either changed nothing or, its commit lost on the way back, changed it
 * wholly, and a repeat with the same identifiers is then answered as for the done command. The
 * failures come wrapped by Axon (its unit of work, its event store) and by Spring's transaction and
 * data-access layers; they are recognised by the cause that says the connection failed, wherever it
 * is in the chain (not by Spring's {@code DataAccessResourceFailureException}: Redis's connection
 * failures are of that kind too, and the gate answers those itself).
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class EventStoreOutage {

  private static final Logger log = LoggerFactory.getLogger(EventStoreOutage.class);

  /** Seconds a caller is asked to wait: a database that is back is used at once. */
  private static final long RETRY_AFTER = 1;

  /** The 503 of a command that could not be stored; {@code detail} says what it changed. */
  public static ProblemException unavailable(String detail) {
    return ProblemException.unavailable(
        CommandProblems.EVENT_STORE_UNAVAILABLE, detail, RETRY_AFTER);
  }

  /**
   * Spring matches these against the exception and then each of its causes, and asks this advice
   * before the platform's catch-all.
   */
  @ExceptionHandler({
    CannotCreateTransactionException.class,
    SQLTransientConnectionException.class,
    SQLNonTransientConnectionException.class,
    org.hibernate.exception.JDBCConnectionException.class
  })
  ResponseEntity<ProblemDetail> unreachable(Exception exception) {
    return outage(exception);
  }

  /**
   * Other JDBC failures, which Hibernate may wrap as generic ones: an SQL state of class 08
   * (connection exception), or the pool's "Connection is closed" (HikariCP's, without a state: the
   * pool evicted the transaction's connection when the database went away under it) is an outage;
   * any other failure is the catch-all's 500.
   */
  @ExceptionHandler({SQLException.class, org.hibernate.JDBCException.class})
  ResponseEntity<ProblemDetail> failed(Exception exception) {
    for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql
          && (sql.getSQLState() != null && sql.getSQLState().startsWith("08")
              || "Connection is closed".equals(sql.getMessage()))) {
        return outage(exception);
      }
    }
    return ProblemResponses.unexpected(exception);
  }

  private static ResponseEntity<ProblemDetail> outage(Exception exception) {
    log.warn("Command not stored, the database is unreachable: {}", exception.toString());
    return ProblemResponses.response(
        unavailable(
            "The database cannot be reached; the request was not recorded, unless its commit"
                + " was under way. Retry it with the same identifiers: a request that was"
                + " recorded after all is answered as done."));
  }
}
