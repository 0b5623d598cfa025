package io.stockade.command.reservation;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockReserved;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.spring.stereotype.Aggregate;

/**
 * One reservation's life. It records what the admission gate decided; the gate, not this aggregate,
 * guards the stock, so reservations of one hot SKU do not contend here.
 */
@Aggregate
class Reservation {

  enum Status {
    RESERVED
  }

  @AggregateIdentifier private String reservationId;
  private Status status;

  Reservation() {}

  @CommandHandler
  Reservation(ReserveStockCommand command) {
    apply(
        new StockReserved(
            command.reservationId(),
            command.userId(),
            command.lines(),
            command.reservedAt(),
            command.expiresAt(),
            command.admissionSequence()));
  }

  @EventSourcingHandler
  void on(StockReserved event) {
    reservationId = event.reservationId();
    status = Status.RESERVED;
  }
}
