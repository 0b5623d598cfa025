package io.stockade.query.reservation;

import io.stockade.api.reservation.FindReservationQuery;
import io.stockade.api.reservation.ReservationView;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import java.util.Map;
import org.axonframework.messaging.responsetypes.ResponseTypes;
import org.axonframework.queryhandling.QueryGateway;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/reservations")
class ReservationController {

  private final QueryGateway queries;

  ReservationController(QueryGateway queries) {
    this.queries = queries;
  }

  @GetMapping("/{reservationId}")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_RESERVATION)
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  ReservationView reservation(@PathVariable @Identifier String reservationId) {
    return queries
        .query(
            new FindReservationQuery(reservationId),
            ResponseTypes.optionalInstanceOf(ReservationView.class))
        .join()
        .orElseThrow(
            () ->
                new ProblemException(
                    HttpStatus.NOT_FOUND,
                    QueryProblems.UNKNOWN_RESERVATION,
                    "Unknown reservation",
                    "Reservation " + reservationId + " is not in the read model.",
                    Map.of("reservationId", reservationId)));
  }
}
