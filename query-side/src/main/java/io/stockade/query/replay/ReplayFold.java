package io.stockade.query.replay;

import io.stockade.platform.eventstore.EventTableFold;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The bulk part of a replay, in the reset's transaction: one read of the event table ({@link
 * EventTableFold}) folded into every read model that has a {@link ReadModelFold}, then every
 * segment of their processors handed the fold's end, a gap-aware token. The processors go on from
 * there: an event that commits late below the end (a gap the token keeps) is delivered to them
 * once, and so is every event stored after the fold began. Processors without a fold replay event
 * by event from the reset tokens, as before.
 */
@Component
class ReplayFold {

  private static final Logger log = LoggerFactory.getLogger(ReplayFold.class);

  private final EventTableFold table;
  private final List<ReadModelFold> folds;
  private final TokenStore tokenStore;

  ReplayFold(EventTableFold table, List<ReadModelFold> folds, TokenStore tokenStore) {
    this.table = table;
    this.folds = List.copyOf(folds);
    this.tokenStore = tokenStore;
  }

  /**
   * Folds the event table into the (just emptied) models of those {@code processors} that have a
   * fold, and stores the end for each of their segments, releasing the claims the token store took
   * to store it. Must run in the transaction of the reset.
   *
   * @param progress told the global index reached, as the fold goes
   * @return the processors folded
   */
  List<String> fold(String replayId, List<String> processors, long head, LongConsumer progress) {
    List<ReadModelFold> chosen =
        folds.stream().filter(fold -> processors.contains(fold.processor())).toList();
    if (chosen.isEmpty()) {
      return List.of();
    }
    Map<String, Class<?>> types = new HashMap<>();
    Map<Class<?>, List<ReadModelFold.Writer>> writersByType = new HashMap<>();
    List<ReadModelFold.Writer> writers = new ArrayList<>();
    for (ReadModelFold fold : chosen) {
      ReadModelFold.Writer writer = fold.start();
      writers.add(writer);
      fold.eventTypes()
          .forEach(
              (name, type) -> {
                types.put(name, type);
                writersByType.computeIfAbsent(type, t -> new ArrayList<>()).add(writer);
              });
    }
    long[] nextTenth = {1};
    GapAwareTrackingToken end =
        table.fold(
            types,
            event -> {
              for (ReadModelFold.Writer writer : writersByType.get(event.payload().getClass())) {
                writer.accept(event);
              }
              progress.accept(event.globalIndex());
              while (nextTenth[0] <= 10 && event.globalIndex() * 10 >= nextTenth[0] * head) {
                log.info(
                    "Replay {}: folded up to global index {} of {} ({}%)",
                    replayId, event.globalIndex(), head, nextTenth[0] * 10);
                nextTenth[0]++;
              }
            });
    writers.forEach(ReadModelFold.Writer::finish);
    List<String> folded = chosen.stream().map(ReadModelFold::processor).toList();
    if (end != null) {
      for (String processor : folded) {
        for (int segment : tokenStore.fetchSegments(processor)) {
          tokenStore.storeToken(end, processor, segment);
          tokenStore.releaseClaim(processor, segment);
        }
      }
      progress.accept(end.getIndex());
    }
    log.info("Replay {}: {} folded up to {}", replayId, folded, end);
    return folded;
  }
}
