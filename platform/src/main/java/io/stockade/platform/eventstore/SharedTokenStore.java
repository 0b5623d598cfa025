package io.stockade.platform.eventstore;

import java.time.Duration;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.tokenstore.UnableToClaimTokenException;
import org.axonframework.eventhandling.tokenstore.jpa.JpaTokenStore;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Axon's JPA token store, whose creation of a processor's first segments commits on its own.
 *
 * <p>A pooled processor creates its segments when it starts and finds none: in one transaction it
 * reads the segments and inserts them, catching a failed insert as another instance's concurrent
 * creation and trying again shortly. With JPA that catch does not help: the failed insert has
 * already marked the transaction for rollback, so its commit throws, the processor's start fails,
 * and so does the start of the second of two instances started together on a database that has
 * never seen the processor. Here the insert runs in a transaction of its own: a duplicate rolls
 * back only that one, the processor's transaction commits its read, and its next try finds the
 * other instance's segments.
 */
public class SharedTokenStore extends JpaTokenStore {

  private final TransactionTemplate ownTransaction;

  /**
   * @param builder Axon's JPA token store as it is to be built
   * @param transactions the transactions the segments are created in, each one of its own
   * @param timeout how long such a transaction may take (the processors' transaction timeout)
   */
  public SharedTokenStore(
      JpaTokenStore.Builder builder, PlatformTransactionManager transactions, Duration timeout) {
    super(builder);
    this.ownTransaction =
        new TransactionTemplate(transactions, ProcessorsConfiguration.definition(timeout));
    this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
  }

  /** Also the one the two-argument form calls, with no initial token. */
  @Override
  public void initializeTokenSegments(
      String processorName, int segmentCount, TrackingToken initialToken)
      throws UnableToClaimTokenException {
    ownTransaction.executeWithoutResult(
        status -> super.initializeTokenSegments(processorName, segmentCount, initialToken));
  }
}
