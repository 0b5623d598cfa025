package io.stockade.query.stock;

import io.stockade.api.stock.StockLevel;
import io.stockade.platform.concurrent.DaemonThreads;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * segment applied it. Each subscriber is sent the numbers a poll reads whenever they differ from
 * those it was sent last: however a subscription and a poll interleave, the next poll brings it up
 * to date.
 */
@Component
class StockStreams implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(StockStreams.class);

  private final StockLevels stockLevels;
  private final Duration timeout;

  /**
   * The subscribers of each SKU. A SKU's set is created, added to, emptied and removed only inside
   * {@code compute} on its key, so a subscriber is never added to a set that has just been dropped.
   */
  private final Map<String, Set<Subscriber>> subscribers = new ConcurrentHashMap<>();

  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("stock-streams"));

  StockStreams(
      StockLevels stockLevels,
      @Value("${stockade.stock-stream.poll-interval:200ms}") Duration interval,
      @Value("${stockade.stock-stream.timeout:30m}") Duration timeout) {
    this.stockLevels = stockLevels;
    this.timeout = timeout;
    poller.scheduleWithFixedDelay(
        this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A new subscriber to a SKU, sent its numbers now; empty when the SKU is unknown. */
  Optional<SseEmitter> subscribe(String skuId) {
    SseEmitter emitter = new SseEmitter(timeout.toMillis());
    return subscribe(skuId, emitter) ? Optional.of(emitter) : Optional.empty();
  }

  /**
   * Streams a SKU's numbers to an emitter: false, and nothing sent, when the SKU is unknown. The
   * emitter is registered before the numbers are read, so that the poller sends it every change
   * after that read; a poll that ran meanwhile may have sent it newer numbers than these, which the
   * next poll puts right.
   */
  boolean subscribe(String skuId, SseEmitter emitter) {
    Subscriber subscriber = new Subscriber(emitter);
    subscribers.compute(
        skuId,
        (id, ofSku) -> {
          Set<Subscriber> set = ofSku == null ? ConcurrentHashMap.newKeySet() : ofSku;
          set.add(subscriber);
          return set;
        });
    Optional<StockLevel> now;
    try {
      now = stockLevels.find(skuId);
    } catch (RuntimeException e) {
      unsubscribe(skuId, subscriber);
      throw e;
    }
    if (now.isEmpty()) {
      unsubscribe(skuId, subscriber);
      return false;
    }
    Runnable remove = () -> unsubscribe(skuId, subscriber);
    emitter.onCompletion(remove);
    emitter.onTimeout(remove);
    emitter.onError(error -> remove.run());
    if (!subscriber.update(now.get())) {
      unsubscribe(skuId, subscriber);
    }
    return true;
  }

  private void unsubscribe(String skuId, Subscriber subscriber) {
    subscribers.computeIfPresent(
        skuId,
        (id, ofSku) -> {
          ofSku.remove(subscriber);
          return ofSku.isEmpty() ? null : ofSku;
        });
  }

  /** One round of the poller: every subscribed SKU's numbers, to the subscribers not sent them. */
  void poll() {
    try {
      if (subscribers.isEmpty()) {
        return;
      }
      List<StockLevel> levels = stockLevels.findAll(List.copyOf(subscribers.keySet()));
      for (StockLevel level : levels) {
        for (Subscriber subscriber : subscribers.getOrDefault(level.skuId(), Set.of())) {
          if (!subscriber.update(level)) {
            unsubscribe(level.skuId(), subscriber);
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("Stock streams could not read the read model; trying again", e);
    }
  }

  /** An open stream and the numbers it was sent last. */
  private static final class Subscriber {

    private final SseEmitter emitter;
    private StockLevel sent;

    Subscriber(SseEmitter emitter) {
      this.emitter = emitter;
    }

    /** Sends numbers unless they are those it was sent last. False when the client is gone. */
    synchronized boolean update(StockLevel level) {
      if (level.equals(sent)) {
        return true;
      }
      try {
        emitter.send(SseEmitter.event().name("stock").data(level, MediaType.APPLICATION_JSON));
      } catch (IOException | IllegalStateException gone) {
        return false;
      }
      sent = level;
      return true;
    }

    void complete() {
      emitter.complete();
    }
  }

  /** Ends every stream first: a graceful shutdown would otherwise wait for them. */
  @EventListener(ContextClosedEvent.class)
  void closing() {
    poller.shutdownNow();
    subscribers.values().forEach(ofSku -> ofSku.forEach(Subscriber::complete));
  }

  @Override
  public void destroy() {
    closing();
  }
}
