package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.eventstore.EventTableFold;
import io.stockade.query.Events;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The reconciliation's fold of the event store: its first fold reads the event table directly, and
 * an event that commits after it, below the position it ended at, is folded by the next catch-up,
 * exactly once.
 */
@SpringBootTest(properties = "stockade.reconciliation.interval=0s")
class EventStoreFoldIntegrationTest {

  @Autowired private EventStore eventStore;
  @Autowired private EventStorageEngine storage;
  @Autowired private EventTableFold table;
  @Autowired private PlatformTransactionManager transactions;
  @Autowired private TransactionTemplate transaction;

  @Test
  void anEventThatCommitsLateBelowTheFirstFoldsEndIsFoldedOnceAfterIt() throws Exception {
    String sku = "fold-" + UUID.randomUUID().toString().substring(0, 8);
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 10, null));
    // A replenishment whose transaction has taken its global index but not committed yet.
    Events.Held late =
        Events.appendHeld(
            eventStore, transaction, sku, 1, new StockReplenished(sku, "late-" + sku, 5));
    String reservation = "fold-r-" + UUID.randomUUID().toString().substring(0, 8);
    Instant now = Instant.now();
    Events.append(
        eventStore,
        transaction,
        reservation,
        0,
        new StockReserved(
            reservation,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            now,
            now.plusSeconds(600),
            1,
            1));

    EventStoreFold fold = new EventStoreFold(storage, table, transactions);
    EventStoreFold.Snapshot first = fold.catchUp();
    assertThat(first.skus().get(sku))
        .as("the replenishment is not committed yet")
        .isEqualTo(new Numbers(10, 8, 2, 0));

    late.commit();
    assertThat(fold.catchUp().skus().get(sku))
        .as("committed below the first fold's end")
        .isEqualTo(new Numbers(15, 13, 2, 0));
    assertThat(fold.catchUp().skus().get(sku)).as("once").isEqualTo(new Numbers(15, 13, 2, 0));
  }
}
