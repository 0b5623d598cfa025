package io.stockade.query.reservation;

import io.stockade.api.StreamFold;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import io.stockade.query.replay.ReadModelFold;
import java.util.Map;
import java.util.concurrent.Executor;
import org.springframework.stereotype.Component;

/**
 * The reservation read model rebuilt in bulk by a replay: the change of each event that {@link
 * ReservationProjection} applies one by one ({@link ReservationChanges}), folded into {@link
 * ReservationRows.Fold}.
 */
@Component
class ReservationReplayFold implements ReadModelFold {

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
    return StreamFold.RESERVATION_EVENTS;
  }

  @Override
  public Writer start(Executor writes) {
    ReservationRows.Fold fold = rows.fold(writes);
    return new Writer() {
      @Override
      public void accept(StoredEvent event) {
        ReservationChanges.apply(
            StreamFold.reservationEvent(event.payload()),
            event.sequenceNumber(),
            event.instant(),
            fold);
      }

      @Override
      public void finish() {
        fold.flush();
      }
    };
  }
}
