package io.stockade.query.feed;

import io.stockade.platform.web.ProblemException;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The feed as server-sent events: each stored event once, in order, as an event named {@code event}
 * whose {@code id} is its position, from the position a subscriber asked for on. One poller per
 * instance serves every subscriber: each interval it reads the highest position stored (one query
 * by primary key), and only a subscriber behind it reads its next events, a page of {@link
 * EventFeed#MOST} at a time. A subscriber at a hole that may still fill waits at it, as {@link
 * EventFeed} does. A stream that has sent nothing for a while is sent a comment, so that proxies
 * keep it open and a client that has gone is found out; at most {@code max-subscribers} streams are
 * open on an instance at once. Sends block: a client that stops reading holds the poller, and every
 * other stream of the instance, until its write fails (the server's write timeout).
 */
@Component
class EventStreams implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(EventStreams.class);

  /** Pages a subscriber reads in one round of the poller before the next subscriber's turn. */
  private static final int PAGES_PER_ROUND = 10;

  private final EventFeed feed;
  private final JdbcTemplate jdbc;
  private final JsonMapper json;
  private final Duration timeout;
  private final long heartbeat;
  private final Semaphore places;
  private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();
  private boolean failing;

  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "event-streams");
            thread.setDaemon(true);
            return thread;
          });

  EventStreams(
      EventFeed feed,
      JdbcTemplate jdbc,
      JsonMapper json,
      @Value("${stockade.event-feed.poll-interval:200ms}") Duration interval,
      @Value("${stockade.event-feed.stream.heartbeat-interval:15s}") Duration heartbeat,
      @Value("${stockade.event-feed.stream.timeout:30m}") Duration timeout,
      @Value("${stockade.event-feed.stream.max-subscribers:100}") int maxSubscribers) {
    this.feed = feed;
    this.jdbc = jdbc;
    this.json = json;
    this.timeout = timeout;
    this.heartbeat = heartbeat.toNanos();
    this.places = new Semaphore(maxSubscribers);
    poller.scheduleWithFixedDelay(
        this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * A stream of the events after {@code after}: the first page of them is read (and queued on the
   * emitter) before it is returned, so that a database that cannot be read fails the request; 503
   * {@code too-many-streams} when the instance streams to as many subscribers as it may.
   */
  SseEmitter subscribe(long after) {
    if (!places.tryAcquire()) {
      throw ProblemException.unavailable(
          "too-many-streams",
          "This instance streams events to as many subscribers as it may; retry shortly, or read"
              + " GET /api/events.",
          5);
    }
    Subscriber subscriber = new Subscriber(new SseEmitter(timeout.toMillis()), after);
    try {
      subscriber.catchUp(1);
    } catch (RuntimeException e) {
      subscriber.close();
      throw e;
    }
    SseEmitter emitter = subscriber.emitter;
    emitter.onCompletion(subscriber::close);
    emitter.onTimeout(subscriber::close);
    emitter.onError(error -> subscriber.close());
    subscribers.add(subscriber);
    return emitter;
  }

  /** One round of the poller: each subscriber behind the head its next events, or a heartbeat. */
  void poll() {
    if (subscribers.isEmpty()) {
      return;
    }
    RuntimeException failure = null;
    long head = -1;
    try {
      Long max =
          jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
      head = max == null ? 0 : max;
    } catch (RuntimeException e) {
      failure = e;
    }
    long now = System.nanoTime();
    for (Subscriber subscriber : subscribers) {
      try {
        if (head > subscriber.position()) {
          subscriber.catchUp(PAGES_PER_ROUND);
        }
      } catch (RuntimeException e) {
        failure = e;
      }
      // While the database is out of reach too: the streams stay open, and wait.
      if (now - subscriber.lastSent() >= heartbeat) {
        subscriber.heartbeat();
      }
    }
    // Once per outage, not at every round.
    if (failure != null && !failing) {
      log.warn("Event streams cannot read the event table; trying again: {}", failure.toString());
    }
    failing = failure != null;
  }

  /** How many streams are open on this instance. */
  int open() {
    return subscribers.size();
  }

  /** An open stream, the position of the last event it was sent, and when it was sent anything. */
  private final class Subscriber {

    private final SseEmitter emitter;
    private final AtomicBoolean closed = new AtomicBoolean();
    private long position;
    private long lastSent = System.nanoTime();

    Subscriber(SseEmitter emitter, long after) {
      this.emitter = emitter;
      this.position = after;
    }

    synchronized long position() {
      return position;
    }

    synchronized long lastSent() {
      return lastSent;
    }

    /** Sends the events after its position, at most {@code pages} pages of them. */
    synchronized void catchUp(int pages) {
      for (int page = 0; page < pages && !closed.get(); page++) {
        FeedPage events = feed.read(position, EventFeed.MOST);
        for (FeedEvent event : events.events()) {
          if (!send(
              SseEmitter.event()
                  .id(Long.toString(event.position()))
                  .name("event")
                  // As text: an SSE data field holds no line break, and a string's are split.
                  .data(json.writeValueAsString(event)))) {
            return;
          }
          position = event.position();
        }
        if (events.events().size() < EventFeed.MOST) {
          return;
        }
      }
    }

    synchronized void heartbeat() {
      send(SseEmitter.event().comment("heartbeat"));
    }

    private boolean send(SseEmitter.SseEventBuilder event) {
      try {
        emitter.send(event);
        lastSent = System.nanoTime();
        return true;
      } catch (IOException | IllegalStateException gone) {
        close();
        return false;
      }
    }

    void close() {
      if (closed.compareAndSet(false, true)) {
        subscribers.remove(this);
        places.release();
      }
    }

    void complete() {
      emitter.complete();
    }
  }

  /** Ends every stream first: a graceful shutdown would otherwise wait for them. */
  @EventListener(ContextClosedEvent.class)
  void closing() {
    poller.shutdownNow();
    subscribers.forEach(Subscriber::complete);
  }

  @Override
  public void destroy() {
    closing();
  }
}
