package io.stockade.query.stock;

import io.stockade.api.stock.StockLevel;
import io.stockade.query.replay.Replays;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Live stock: server-sent {@code stock} events for each subscribed SKU, the current numbers at once
 * and again after every change. Changes are read from the read model (one query per interval for
 * all subscribed SKUs of this instance), so a subscriber sees every change whichever instance's
 * segment applied it.
 */
@Component
class StockStreams implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(StockStreams.class);

  private final StockLevels stockLevels;
  private final Replays replays;
  private final Duration timeout;
  private final Map<String, Set<SseEmitter>> subscribers = new ConcurrentHashMap<>();
  private final Map<String, StockLevel> sent = new ConcurrentHashMap<>();
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "stock-streams");
            thread.setDaemon(true);
            return thread;
          });

  StockStreams(
      StockLevels stockLevels,
      Replays replays,
      @Value("${stockade.stock-stream.poll-interval:200ms}") Duration interval,
      @Value("${stockade.stock-stream.timeout:30m}") Duration timeout) {
    this.stockLevels = stockLevels;
    this.replays = replays;
    this.timeout = timeout;
    poller.scheduleWithFixedDelay(
        this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A new subscriber to a SKU, sent its numbers now; empty when the SKU is unknown. */
  Optional<SseEmitter> subscribe(String skuId) {
    Optional<StockLevel> now = stockLevels.find(skuId);
    if (now.isEmpty()) {
      return Optional.empty();
    }
    SseEmitter emitter = new SseEmitter(timeout.toMillis());
    Set<SseEmitter> ofSku = subscribers.computeIfAbsent(skuId, id -> new CopyOnWriteArraySet<>());
    ofSku.add(emitter);
    Runnable remove = () -> unsubscribe(skuId, emitter);
    emitter.onCompletion(remove);
    emitter.onTimeout(remove);
    emitter.onError(error -> remove.run());
    sent.putIfAbsent(skuId, now.get());
    send(skuId, emitter, now.get());
    return Optional.of(emitter);
  }

  private void unsubscribe(String skuId, SseEmitter emitter) {
    subscribers.computeIfPresent(
        skuId,
        (id, emitters) -> {
          emitters.remove(emitter);
          if (emitters.isEmpty()) {
            sent.remove(id);
            return null;
          }
          return emitters;
        });
  }

  private void poll() {
    try {
      if (subscribers.isEmpty() || replays.running()) {
        // During a replay the rows are half built: streams wait for the rebuilt numbers.
        return;
      }
      List<StockLevel> levels = stockLevels.findAll(List.copyOf(subscribers.keySet()));
      for (StockLevel level : levels) {
        StockLevel before = sent.put(level.skuId(), level);
        if (level.equals(before)) {
          continue;
        }
        for (SseEmitter emitter : subscribers.getOrDefault(level.skuId(), Set.of())) {
          send(level.skuId(), emitter, level);
        }
      }
    } catch (RuntimeException e) {
      log.warn("Stock streams could not read the read model; trying again", e);
    }
  }

  private void send(String skuId, SseEmitter emitter, StockLevel level) {
    try {
      emitter.send(SseEmitter.event().name("stock").data(level, MediaType.APPLICATION_JSON));
    } catch (IOException | IllegalStateException gone) {
      unsubscribe(skuId, emitter);
    }
  }

  /** Ends every stream first: a graceful shutdown would otherwise wait for them. */
  @EventListener(ContextClosedEvent.class)
  void closing() {
    poller.shutdownNow();
    subscribers.values().forEach(emitters -> emitters.forEach(SseEmitter::complete));
  }

  @Override
  public void destroy() {
    closing();
  }
}
