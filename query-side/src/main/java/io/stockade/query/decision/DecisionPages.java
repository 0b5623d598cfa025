package io.stockade.query.decision;

import io.stockade.api.stock.FindStockQuery;
import io.stockade.api.stock.StockLevel;
import io.stockade.query.decision.GateDecisions.Key;
import io.stockade.query.decision.GateDecisions.SkuRow;
import io.stockade.query.decision.GateDecisions.Stream;
import io.stockade.query.decision.GateDecisions.UserRow;
import java.util.List;
import java.util.Optional;
import org.axonframework.messaging.responsetypes.ResponseTypes;
import org.axonframework.queryhandling.QueryGateway;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Pages of the gate's decisions, of a SKU or of a user, each read in one snapshot of the database
 * so that its rows, its total and its page agree. A SKU's pages are found through the marks of its
 * streams ({@link DecisionMarks}), which the read extends first when they are behind.
 */
@Component
class DecisionPages {

  /** Which rows: decided in {@code [from, to)} (epoch milliseconds), the page's size. */
  record Window(long from, long to, int size) {}

  /** A page and the total of the window. {@code sellout}: its position, when asked for. */
  record SkuPage(List<SkuRow> rows, long page, long total, Optional<Long> sellout) {}

  record UserPage(List<UserRow> rows, long total) {}

  private final GateDecisions decisions;
  private final DecisionMarks marks;
  private final QueryGateway queries;
  private final TransactionTemplate snapshot;

  DecisionPages(
      GateDecisions decisions,
      DecisionMarks marks,
      QueryGateway queries,
      PlatformTransactionManager transactions) {
    this.decisions = decisions;
    this.marks = marks;
    this.queries = queries;
    this.snapshot = new TransactionTemplate(transactions);
    this.snapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
    this.snapshot.setReadOnly(true);
  }

  /**
   * A page of the SKU's decisions: page {@code page}, or with {@code aroundSellout} the page that
   * holds the first decision in the window leaving no unit available (page 0 when there is none).
   * Empty when the SKU has no decision and is not in the read model either.
   */
  Optional<SkuPage> ofSku(String skuId, Window window, long page, boolean aroundSellout) {
    Reading answer = null;
    for (int attempt = 0; answer == null; attempt++) {
      boolean extend = attempt == 0;
      Reading reading =
          snapshot.execute(status -> read(skuId, window, page, aroundSellout, extend));
      if (reading.toExtend().isEmpty()) {
        answer = reading;
      } else {
        // Extended outside the snapshot, then read again (once: new rows since do not matter).
        for (Stream stream : reading.toExtend()) {
          marks.extend(skuId, stream.partition(), stream.epoch());
        }
      }
    }
    if (!answer.decided() && !known(skuId)) {
      return Optional.empty();
    }
    return Optional.of(answer.page());
  }

  /**
   * A read's page and whether the SKU has any decision at all, or the streams to extend before it
   * is read.
   */
  private record Reading(SkuPage page, boolean decided, List<Stream> toExtend) {}

  private Reading read(
      String skuId, Window window, long page, boolean aroundSellout, boolean extend) {
    List<Stream> streams = decisions.streams(skuId);
    List<DecisionMarks.Mark> stored = marks.of(skuId);
    SkuOrder order = new SkuOrder(skuId, streams, stored, decisions, marks.interval());
    if (extend && !order.toExtend().isEmpty()) {
      return new Reading(null, true, order.toExtend());
    }
    Optional<Long> sellout = Optional.empty();
    if (order.empty()) {
      return new Reading(
          new SkuPage(List.of(), 0, 0, aroundSellout ? sellout : null), false, List.of());
    }
    long first = order.before(window.from());
    long end = order.before(window.to());
    long shown = page;
    if (aroundSellout) {
      Optional<Key> soldOut = decisions.firstSoldOut(skuId, window.from(), window.to());
      if (soldOut.isPresent()) {
        Key key = soldOut.get();
        long position = order.before(key.decidedAt()) + decisions.before(skuId, key) - first;
        sellout = Optional.of(position);
        shown = position / window.size();
      } else {
        shown = 0;
      }
    }
    long n = first + shown * window.size();
    List<SkuRow> rows = List.of();
    if (n < end) {
      SkuOrder.Place place = order.place(n, window.from(), window.to());
      int limit = (int) Math.min(window.size(), end - n);
      rows = decisions.page(skuId, place.at(), window.to(), place.offset(), limit);
    }
    return new Reading(
        new SkuPage(rows, shown, end - first, aroundSellout ? sellout : null), true, List.of());
  }

  /** A page of the user's decisions, every SKU's; none for a user the gate never decided for. */
  UserPage ofUser(String userId, Window window, long page) {
    return snapshot.execute(
        status -> {
          long total = decisions.userCount(userId, window.from(), window.to());
          long offset = page * window.size();
          List<UserRow> rows =
              offset < total
                  ? decisions.userPage(userId, window.from(), window.to(), offset, window.size())
                  : List.of();
          return new UserPage(rows, total);
        });
  }

  /** Whether the stock read model knows the SKU, as {@code GET /api/stock/{skuId}} decides. */
  private boolean known(String skuId) {
    return queries
        .query(new FindStockQuery(skuId), ResponseTypes.optionalInstanceOf(StockLevel.class))
        .join()
        .isPresent();
  }
}
