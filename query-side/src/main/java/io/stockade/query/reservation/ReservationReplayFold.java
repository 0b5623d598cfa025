package io.stockade.query.reservation;

import io.stockade.api.StreamFold;
import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import io.stockade.query.replay.ReadModelFold;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The reservation read model rebuilt in bulk by a replay: the change of each event that {@link
 * ReservationProjection} applies one by one ({@link ReservationChanges}), folded into {@link
 * ReservationFold}.
 */
@Component
class ReservationReplayFold implements ReadModelFold {

  private final ReservationRows rows;
  private final ReservationTables tables;
  private final int window;

  ReservationReplayFold(
      ReservationRows rows,
      JdbcTemplate jdbc,
      @Value("${stockade.replay.reservation-window:" + ReservationFold.FOLD_WINDOW + "}")
          int window) {
    if (window < 1) {
      throw new IllegalArgumentException(
          "stockade.replay.reservation-window must be at least 1, not " + window);
    }
    this.rows = rows;
    this.tables = new ReservationTables(jdbc);
    this.window = window;
  }

  @Override
  public String processor() {
    return ReservationProjection.PROCESSING_GROUP;
  }

  @Override
  public Map<String, Class<?>> eventTypes() {
    return EVENT_TYPES;
  }

  /** A reservation's events, and those of its stream while it is queued. */
  private static final Map<String, Class<?>> EVENT_TYPES =
      Stream.concat(
              StreamFold.RESERVATION_EVENTS.values().stream(),
              Stream.of(ReservationQueued.class, ReservationDrawn.class))
          .collect(Collectors.toUnmodifiableMap(Class::getName, Function.identity()));

  @Override
  public List<String> tables() {
    return List.of("reservation_view", "sku_queue");
  }

  @Override
  public Writer start(Executor writes, String suffix) {
    ReservationFold fold = new ReservationFold(tables.into(suffix), window, writes);
    return writer(fold, fold::flush);
  }

  @Override
  public Writer follow(String suffix) {
    return writer(rows.into(suffix), () -> {});
  }

  /** Each event's change, as the projection applies it, to {@code target}. */
  private static Writer writer(ReservationChanges.Target target, Runnable finish) {
    return new Writer() {
      @Override
      public void accept(StoredEvent event) {
        if (event.payload() instanceof ReservationQueued queued) {
          ReservationChanges.queued(queued, event.instant(), target);
          return;
        }
        if (event.payload() instanceof ReservationDrawn drawn) {
          ReservationChanges.drawn(drawn, event.instant(), target);
          return;
        }
        ReservationChanges.apply(
            StreamFold.reservationEvent(event.payload()),
            event.sequenceNumber(),
            event.instant(),
            target);
      }

      @Override
      public void finish() {
        finish.run();
      }
    };
  }
}
