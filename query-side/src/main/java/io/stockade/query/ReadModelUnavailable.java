package io.stockade.query;

import io.stockade.platform.web.ProblemException;
import io.stockade.platform.web.ProblemResponses;
import org.axonframework.eventsourcing.eventstore.EventStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * A database that cannot be reached, or that times out, is answered 503 {@code
 * read-model-unavailable} with {@code Retry-After}: the read model (or the event store) cannot be
 * read now, which is not a failure of the request. Ahead of the platform's handlers, whose
 * catch-all would answer 500.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class ReadModelUnavailable {

  private static final Logger log = LoggerFactory.getLogger(ReadModelUnavailable.class);

  @ExceptionHandler({
    DataAccessResourceFailureException.class,
    TransientDataAccessException.class,
    RecoverableDataAccessException.class,
    CannotCreateTransactionException.class,
    EventStoreException.class
  })
  ResponseEntity<ProblemDetail> unavailable(RuntimeException exception) {
    log.warn("Database unavailable: {}", exception.toString());
    return ProblemResponses.response(
        ProblemException.unavailable(
            QueryProblems.READ_MODEL_UNAVAILABLE,
            "The database cannot be read now; retry shortly.",
            2));
  }
}
