package io.stockade.platform.eventstore;

import io.stockade.platform.concurrent.DaemonThreads;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The position of the event table below which nothing can change any more: every global index up to
 * {@link #settled()} is an event that is stored or a hole that no transaction can fill. Global
 * indices are taken at insert and committed in any order, and a rolled-back insert leaves its index
 * empty for good; a reader passes a hole only below this horizon (the query side's event feed), and
 * a checkpoint of the gate is taken only at it.
 *
 * <p>The horizon moves in rounds, only while a reader waits at a hole above it ({@link #demand}). A
 * round reads the highest index stored, {@code head}, at a moment {@code t0}: every index up to
 * {@code head} was taken before {@code t0}, by a transaction begun before {@code t0}. Once every
 * such transaction has ended, each index up to {@code head} is stored or never will be, and the
 * horizon moves to {@code head}. Which have ended is known in one of two ways:
 *
 * <ul>
 *   <li>from InnoDB's list of active transactions ({@link ActiveTransactions}, which needs the
 *       {@code PROCESS} privilege): a list taken at least {@link #STARTING_WINDOW} after {@code t0}
 *       shows every transaction begun before {@code t0} that has not ended, so the round ends once
 *       none of the transactions of that list is active any more. The window covers the instant
 *       between an insert taking its index and InnoDB listing its transaction (an insert that opens
 *       its transaction takes the index first), and is the only time this way assumes anything
 *       about;
 *   <li>without that privilege, from time alone: the round ends {@code gap-timeout} after {@code
 *       t0}, which assumes that no transaction that inserts events lives that long.
 * </ul>
 *
 * The horizon is this instance's own, in memory, and starts at 0: another instance computes its own
 * from the same database, and a new one passes its first hole after one round. A round in progress
 * is a few numbers and, at most, the list of transactions it waits for; at most {@link
 * #MOST_ROUNDS} are in progress at once.
 */
public final class SettledHorizon implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(SettledHorizon.class);

  /**
   * How long after {@code t0} the list of active transactions is taken: far longer than an insert
   * spends between taking its index and InnoDB listing its transaction (a few steps of the same
   * call, with no row lock and no I/O between; only InnoDB's thread queue, {@code
   * innodb_thread_concurrency}, off by default, could hold it there), and than InnoDB's cache of
   * the list (0.1 s).
   */
  public static final Duration STARTING_WINDOW = Duration.ofSeconds(1);

  static final int MOST_ROUNDS = 1024;

  /** How the end of the transactions of a round is known. */
  public enum Evidence {
    /** InnoDB's list of active transactions. */
    TRANSACTIONS,
    /** The gap timeout: the account may not read InnoDB's list. */
    TIMEOUT
  }

  /** One round: the head it read, when, and the transactions it waits for once listed. */
  private static final class Round {

    final long head;
    final long readAt;
    Set<String> waitingFor;
    boolean overdueLogged;

    Round(long head, long readAt) {
      this.head = head;
      this.readAt = readAt;
    }
  }

  private final JdbcTemplate jdbc;
  private final String reader;
  private final ActiveTransactions transactions;
  private final long gapTimeout;
  private final ScheduledExecutorService ticker;

  private volatile long settled;

  /** When the oldest round in progress read its head ({@link System#nanoTime()}), if any. */
  private volatile long waitingSince;

  private volatile boolean waiting;
  private volatile Evidence evidence = Evidence.TRANSACTIONS;
  private final AtomicLong wanted = new AtomicLong();
  private final AtomicLong freshLists = new AtomicLong();

  /** Rounds in progress, oldest (lowest head) first; touched by the ticker's thread only. */
  private final Deque<Round> rounds = new ArrayDeque<>();

  private boolean failing;

  /**
   * A horizon of the event table of {@code jdbc}'s database that moves every {@code interval} while
   * demanded; {@code gapTimeout} is how long a hole waits when the account cannot list the active
   * transactions; {@code reader} names who waits, in the log ("The event feed").
   */
  public SettledHorizon(JdbcTemplate jdbc, String reader, Duration gapTimeout, Duration interval) {
    this.reader = reader;
    this.jdbc = jdbc;
    this.transactions = new ActiveTransactions(jdbc);
    this.gapTimeout = gapTimeout.toNanos();
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("event-feed-horizon"));
    ticker.scheduleWithFixedDelay(
        this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Every global index up to this one is stored or never will be. Read it before the rows it is
   * applied to: a row read before the horizon moved may lack an event that committed meanwhile.
   */
  public long settled() {
    return settled;
  }

  /** A reader waits at a hole that reaches up to {@code index}: the horizon should pass it. */
  public void demand(long index) {
    wanted.accumulateAndGet(index, Math::max);
  }

  /** How the rounds of this instance know that transactions have ended. */
  public Evidence evidence() {
    return evidence;
  }

  /**
   * How long a reader has been held below the oldest hole of the event table that this instance
   * does not know to be settled yet: since the round that will pass it read the head, or zero when
   * no reader waits at a hole. Normally under {@link #STARTING_WINDOW} and a tick; a transaction
   * left open that holds an index (or, without the list of transactions, every hole) makes it grow.
   */
  public Duration waiting() {
    long since = waitingSince;
    return waiting ? Duration.ofNanos(Math.max(0, System.nanoTime() - since)) : Duration.ZERO;
  }

  /** How many fresh lists of active transactions this instance has read (for tests). */
  public long freshLists() {
    return freshLists.get();
  }

  public void tick() {
    try {
      long want = wanted.get();
      if (want > settled
          && (rounds.isEmpty() || rounds.peekLast().head < want)
          && rounds.size() < MOST_ROUNDS) {
        Long head =
            jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
        // A reader saw an event above the hole, so the head lies above it too.
        if (head != null && head >= want) {
          rounds.addLast(new Round(head, System.nanoTime()));
        }
      }
      if (!rounds.isEmpty()) {
        conclude();
      }
      Round oldest = rounds.peekFirst();
      if (oldest != null) {
        waitingSince = oldest.readAt;
      }
      waiting = oldest != null;
      failing = false;
    } catch (RuntimeException e) {
      // Once per outage, not at every tick.
      if (!failing) {
        log.warn("{} cannot check its holes; trying again: {}", reader, e.toString());
      }
      failing = true;
    }
  }

  /** Ends the rounds whose transactions have all ended, and moves the horizon to the last one's. */
  private void conclude() {
    long now = System.nanoTime();
    Round ended = null;
    if (evidence == Evidence.TRANSACTIONS) {
      ended = byTransactions(now);
    }
    if (evidence == Evidence.TIMEOUT) {
      for (Round round : rounds) {
        if (now - round.readAt >= gapTimeout) {
          ended = round;
        }
      }
    }
    if (ended != null) {
      // Every transaction that took an index up to its head has ended, and so has every one of
      // the rounds before it, whose heads are lower.
      settled = Math.max(settled, ended.head);
      while (!rounds.isEmpty() && rounds.peekFirst().head <= settled) {
        rounds.removeFirst();
      }
    }
  }

  private Round byTransactions(long now) {
    boolean due = false;
    for (Round round : rounds) {
      due |= round.waitingFor != null || now - round.readAt >= STARTING_WINDOW.toNanos();
    }
    if (!due) {
      return null;
    }
    Optional<Set<String>> listed;
    try {
      listed = transactions.list();
    } catch (ActiveTransactions.NotPermitted e) {
      evidence = Evidence.TIMEOUT;
      log.warn(
          "{} cannot read information_schema.innodb_trx ({}): it takes a hole in the"
              + " event table as permanent only {} after it first sees it. Grant the PROCESS"
              + " privilege to pass holes as soon as no transaction can fill them.",
          reader,
          e.getMessage(),
          Duration.ofNanos(gapTimeout));
      return null;
    }
    if (listed.isEmpty()) {
      // InnoDB answered from a list older than this call: try again at the next tick.
      return null;
    }
    freshLists.incrementAndGet();
    Set<String> active = listed.get();
    Round ended = null;
    for (Iterator<Round> it = rounds.iterator(); it.hasNext(); ) {
      Round round = it.next();
      if (round.waitingFor == null) {
        if (now - round.readAt < STARTING_WINDOW.toNanos()) {
          continue;
        }
        // Taken after now, so after the window: it holds every transaction of the round's that
        // is still active.
        round.waitingFor = new HashSet<>(active);
      } else {
        round.waitingFor.retainAll(active);
      }
      if (round.waitingFor.isEmpty()) {
        ended = round;
      } else if (!round.overdueLogged && now - round.readAt >= gapTimeout) {
        round.overdueLogged = true;
        log.warn(
            "{} waits at a hole below position {} for transactions begun more than {}"
                + " ago, still active (thread id@start): {}",
            reader,
            round.head,
            Duration.ofNanos(gapTimeout),
            Collections.unmodifiableSet(round.waitingFor));
      }
    }
    return ended;
  }

  @Override
  public void destroy() {
    ticker.shutdownNow();
  }
}
