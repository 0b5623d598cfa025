package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockReserved;
import io.stockade.platform.eventstore.EventRows;
import io.stockade.platform.jdbc.DirectParameters;
import io.stockade.platform.jdbc.MultiRowInsert;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.config.Configuration;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The rows of new reservations, as {@link StoringReservations} writes them: each one's {@code
 * StockReserved} as Axon's JPA engine writes an aggregate's first event (the {@link Reservation}
 * aggregate's type, the stream, sequence 0, metadata from Axon's correlation data providers,
 * serialized by its event serializer), and its expiry's due time; many rows to a statement.
 */
final class NewReservationRows {

  /** The aggregate type Axon stores with a reservation's events: its class's simple name. */
  static final String AGGREGATE_TYPE = Reservation.class.getSimpleName();

  private static final String EXPIRY_COLUMNS =
      "insert into reservation_expiry (reservation_id, due_at) values ";
  private static final String EXPIRY_ROW = "(?, ?)";

  private final JdbcTemplate jdbc;
  private final Configuration axon;
  private final EventRows events;

  NewReservationRows(JdbcTemplate jdbc, Configuration axon) {
    this.jdbc = jdbc;
    this.axon = axon;
    this.events = new EventRows(axon::eventSerializer);
  }

  /** The event that begins a reservation's stream. */
  static StockReserved reserved(ReserveStockCommand command) {
    return new StockReserved(
        command.reservationId(),
        command.userId(),
        command.lines(),
        command.reservedAt(),
        command.expiresAt(),
        command.admissionSequence(),
        command.gateEpoch());
  }

  /** The event's row, as Axon's JPA engine writes an aggregate's event ({@link EventRows}). */
  Object[] row(ReserveStockCommand command) {
    CommandMessage<ReserveStockCommand> message = GenericCommandMessage.asCommandMessage(command);
    Map<String, Object> metaData = new HashMap<>();
    for (CorrelationDataProvider provider : axon.correlationDataProviders()) {
      metaData.putAll(provider.correlationDataFor(message));
    }
    return events.row(
        AGGREGATE_TYPE,
        ReservationEvent.streamId(command.reservationId()),
        0,
        reserved(command),
        metaData);
  }

  /** The events' rows, in one statement. */
  void insertEvents(List<Object[]> rows) {
    List<Object> arguments = new ArrayList<>(rows.size() * 9);
    for (Object[] row : rows) {
      Collections.addAll(arguments, row);
    }
    DirectParameters.update(
        jdbc,
        MultiRowInsert.sql(EventRows.COLUMNS, EventRows.ROW, rows.size()),
        arguments.toArray());
  }

  /** The reservations' expiry rows ({@code reservation_expiry}), in one statement. */
  void insertExpiries(List<ReserveStockCommand> commands) {
    List<Object> arguments = new ArrayList<>(commands.size() * 2);
    for (ReserveStockCommand command : commands) {
      arguments.add(command.reservationId());
      arguments.add(LocalDateTime.ofInstant(command.expiresAt(), ZoneOffset.UTC));
    }
    jdbc.update(
        MultiRowInsert.sql(EXPIRY_COLUMNS, EXPIRY_ROW, commands.size()), arguments.toArray());
  }
}
