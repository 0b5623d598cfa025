package io.stockade.query.feed;

import io.stockade.platform.concurrent.DaemonThreads;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * instance watches for every subscriber: each interval it reads the highest position stored (one
 * query by primary key), and only a subscriber behind it reads its next events, a page of {@link
 * EventFeed#MOST} at a time. A subscriber at a hole that may still fill waits at it, as {@link
 * EventFeed} does. A stream that has sent nothing for a while is sent a comment, so that proxies
 * keep it open and a client that has gone is found out; at most {@code max-subscribers} streams are
 * open on an instance at once.
 *
 * <p>Sending blocks while a client does not read: each subscriber is served on a thread of its own
 * (one task at a time, from a pool that keeps no idle thread for long), so that a client that has
 * stopped reading holds only its own stream until its write fails.
 */
@Component
class EventStreams implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(EventStreams.class);

  /** Pages a subscriber is sent in one round before the poller looks again. */
  private static final int PAGES_PER_ROUND = 10;

  private final EventFeed feed;
  private final JdbcTemplate jdbc;
  private final JsonMapper json;
  private final Duration timeout;
  private final long heartbeat;
  private final Semaphore places;
  private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private boolean failing;

  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("event-streams"));
  private final ThreadPoolExecutor senders;

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
    this.senders =
        new ThreadPoolExecutor(
            0,
            maxSubscribers,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            DaemonThreads.named("event-streams-send"));
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
          QueryProblems.TOO_MANY_STREAMS,
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
    long head = -1;
    try {
      Long max =
          jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
      head = max == null ? 0 : max;
    } catch (RuntimeException e) {
      failure.set(e);
    }
    long now = System.nanoTime();
    for (Subscriber subscriber : subscribers) {
      // While the database is out of reach too, heartbeats: the streams stay open, and wait.
      boolean behind = head > subscriber.position;
      if ((behind || now - subscriber.lastSent >= heartbeat)
          && subscriber.busy.compareAndSet(false, true)) {
        try {
          senders.execute(() -> subscriber.serve(behind));
        } catch (RejectedExecutionException stillSending) {
          // Threads of closed streams still blocked in a write: this one's turn comes next round.
          subscriber.busy.set(false);
        }
      }
    }
    RuntimeException failed = failure.getAndSet(null);
    // Once per outage, not at every round.
    if (failed != null && !failing) {
      log.warn("Event streams cannot read the event table; trying again: {}", failed.toString());
    }
    failing = failed != null;
  }

  /** How many streams are open on this instance. */
  int open() {
    return subscribers.size();
  }

  /**
   * An open stream, the position of the last event it was sent and when it was sent anything.
   * Served by one task at a time ({@code busy}); the poller reads the two numbers without waiting
   * for it.
   */
  private final class Subscriber {

    private final SseEmitter emitter;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile long position;
    private volatile long lastSent = System.nanoTime();

    Subscriber(SseEmitter emitter, long after) {
      this.emitter = emitter;
      this.position = after;
    }

    /** The poller's task: its next events when it is behind, a heartbeat when it has been quiet. */
    void serve(boolean behind) {
      try {
        if (behind) {
          catchUp(PAGES_PER_ROUND);
        }
      } catch (RuntimeException e) {
        failure.set(e);
      } finally {
        if (System.nanoTime() - lastSent >= heartbeat) {
          send(SseEmitter.event().comment("heartbeat"));
        }
        busy.set(false);
      }
    }

    /** Sends the events after its position, at most {@code pages} pages of them. */
    void catchUp(int pages) {
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
    senders.shutdownNow();
    subscribers.forEach(Subscriber::complete);
  }

  @Override
  public void destroy() {
    closing();
  }
}
