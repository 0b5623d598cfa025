package io.stockade.query.reservation;

import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import io.stockade.query.replay.ReadModelFold;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.stereotype.Component;

/**
 * The reservation read model rebuilt in bulk by a replay: what {@link ReservationProjection} does
 * event by event, folded into {@link ReservationRows.Fold}.
 */
@Component
class ReservationReplayFold implements ReadModelFold {

  private static final Map<String, Class<?>> TYPES =
      Stream.of(
              StockReserved.class,
              ReservationAbandoned.class,
              ReservationExtended.class,
              StockConfirmed.class,
              StockReleased.class)
          .collect(Collectors.toMap(Class::getName, type -> type));

  private final ReservationRows rows;

  ReservationReplayFold(ReservationRows rows) {
    this.rows = rows;
  }

  @Override
  public String processor() {
    return ReservationProjection.PROCESSING_GROUP;
  }

  @Override
  public Map<String, Class<?>> eventTypes() {
    return TYPES;
  }

  @Override
  public Writer start(Executor writes) {
    ReservationRows.Fold fold = rows.fold(writes);
    return new Writer() {
      @Override
      public void accept(StoredEvent event) {
        ReservationReplayFold.apply(fold, event);
      }

      @Override
      public void finish() {
        fold.flush();
      }
    };
  }

  private static void apply(ReservationRows.Fold fold, StoredEvent event) {
    long sequence = event.sequenceNumber();
    Instant at = event.instant();
    Object payload = event.payload();
    if (payload instanceof StockReserved reserved) {
      fold.create(
          reserved.reservationId(),
          reserved.userId(),
          ReservationRows.Status.RESERVED,
          reserved.lines(),
          reserved.reservedAt(),
          reserved.expiresAt(),
          null,
          null,
          sequence,
          at);
    } else if (payload instanceof ReservationAbandoned abandoned) {
      fold.create(
          abandoned.reservationId(),
          abandoned.userId(),
          ReservationRows.Status.ABANDONED,
          abandoned.lines(),
          abandoned.abandonedAt(),
          null,
          abandoned.abandonedAt(),
          ReservationAbandoned.REASON,
          sequence,
          at);
    } else if (payload instanceof ReservationExtended extended) {
      fold.extend(extended.reservationId(), extended.expiresAt(), sequence, at);
    } else if (payload instanceof StockConfirmed confirmed) {
      fold.confirm(
          confirmed.reservationId(), confirmed.confirmedAt(), confirmed.lines(), sequence, at);
    } else if (payload instanceof StockReleased released) {
      fold.release(
          released.reservationId(), released.releasedAt(), released.reason(), sequence, at);
    } else {
      throw new IllegalArgumentException("Not a reservation event: " + payload);
    }
  }
}
