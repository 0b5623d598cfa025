package io.stockade.platform.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two instances starting a processor at once on a database that has never seen it: both find no
 * segment, both create them, and both starts must go on, with the segments created once. Each start
 * does what Axon's pooled processor does (its coordinator, Axon 4.13): in one transaction, read the
 * segments, create them when there are none, and take a failure to create them for another
 * instance's creation, to be tried again. Both read before either creates (a barrier), so the
 * second creation always meets the first one's rows. With Axon's JPA token store as it comes, the
 * second's failed insert leaves its transaction marked for rollback, its commit throws, and that
 * instance does not start.
 */
public final class SegmentCreationRace {

  private SegmentCreationRace() {}

  /** Races two starts of a processor of its own on the service's token store; then removes it. */
  public static void bothStartsCommit(
      TokenStore tokenStore, PlatformTransactionManager transactions, JdbcTemplate jdbc)
      throws Exception {
    String processor = "segment-race-" + UUID.randomUUID().toString().substring(0, 8);
    CyclicBarrier bothRead = new CyclicBarrier(2);
    Callable<Boolean> start =
        () ->
            new TransactionTemplate(transactions)
                .execute(
                    status -> {
                      int[] segments = tokenStore.fetchSegments(processor);
                      await(bothRead);
                      if (segments.length > 0) {
                        return false;
                      }
                      try {
                        tokenStore.initializeTokenSegments(processor, 2);
                        return true;
                      } catch (RuntimeException anotherInstanceCreatedThem) {
                        return false;
                      }
                    });
    ExecutorService instances = Executors.newFixedThreadPool(2);
    try {
      List<Future<Boolean>> starts =
          instances.invokeAll(List.of(start, start), 60, TimeUnit.SECONDS);
      // get() rethrows the failed commit of a start.
      List<Boolean> created = List.of(starts.get(0).get(), starts.get(1).get());

      assertThat(created)
          .as("one start created the segments")
          .containsExactlyInAnyOrder(true, false);
      assertThat(tokenStore.fetchSegments(processor)).containsExactly(0, 1);
      assertThat(
              jdbc.queryForObject(
                  "select count(*) from token_entry where processor_name = ?",
                  Integer.class,
                  processor))
          .isEqualTo(2);
    } finally {
      instances.shutdownNow();
      jdbc.update("delete from token_entry where processor_name = ?", processor);
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the other start did not read the segments", e);
    }
  }
}
