package io.stockade.query.feed;

import java.time.Duration;
import org.axonframework.eventhandling.GlobalSequenceTrackingToken;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.UnableToClaimTokenException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Which instance publishes: the one that claims the publisher's single segment in the token store
 * that every query-side instance shares (the same claims, owners and timeout as the projections'
 * segments). The claim is kept by recording the published position at every transaction, and by
 * extending it a third of the claim timeout after the last time when there is nothing to publish;
 * an instance that stops doing so loses it after the token store's claim timeout, and another,
 * which tries every fifth of that timeout ({@link #standbyInterval()}), takes over. The position
 * recorded there is for people (and the lag); the publisher itself goes on from the topic's last
 * committed record.
 */
final class PublisherLease {

  /** The name of the publisher's entry in the token store. */
  static final String NAME = "stockade-kafka-publisher";

  private final TokenStore tokens;
  private final TransactionTemplate transaction;
  private final Duration claimTimeout;
  private long keptAt;

  PublisherLease(
      TokenStore tokens, PlatformTransactionManager transactions, Duration claimTimeout) {
    this.tokens = tokens;
    this.transaction = new TransactionTemplate(transactions);
    this.claimTimeout = claimTimeout;
  }

  /** How long an instance that does not publish waits before it tries to take over again. */
  Duration standbyInterval() {
    return claimTimeout.dividedBy(5);
  }

  /** Claims the segment for this instance: false when another instance holds it. */
  boolean acquire() {
    if (transaction.execute(status -> tokens.fetchSegments(NAME).length) == 0) {
      try {
        tokens.initializeTokenSegments(NAME, 1);
      } catch (RuntimeException createdByAnother) {
        // Another instance created it at the same time: claim it below, or fail to.
      }
    }
    try {
      transaction.executeWithoutResult(status -> tokens.fetchToken(NAME, 0));
      keptAt = System.nanoTime();
      return true;
    } catch (UnableToClaimTokenException claimedByAnother) {
      return false;
    }
  }

  /**
   * Records the position and keeps the claim.
   *
   * @throws UnableToClaimTokenException when another instance took the claim over
   */
  void record(long position) {
    transaction.executeWithoutResult(
        status -> tokens.storeToken(new GlobalSequenceTrackingToken(position), NAME, 0));
    keptAt = System.nanoTime();
  }

  /**
   * Keeps the claim when a third of the claim timeout has passed since it was last kept (the
   * publisher calls this at every idle poll).
   *
   * @throws UnableToClaimTokenException when another instance took the claim over
   */
  void extend() {
    if (System.nanoTime() - keptAt >= claimTimeout.dividedBy(3).toNanos()) {
      transaction.executeWithoutResult(status -> tokens.extendClaim(NAME, 0));
      keptAt = System.nanoTime();
    }
  }

  /** Gives the claim up, so that another instance takes over at once. */
  void release() {
    transaction.executeWithoutResult(status -> tokens.releaseClaim(NAME, 0));
  }
}
