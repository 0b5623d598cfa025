package io.stockade.query.stock;

import io.stockade.api.sku.SaleStatus;
import io.stockade.api.sku.SkuEvent;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemCodes;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A SKU as it was at an instant: its numbers summed from the changes its events made up to then,
 * its per-user limit and its sale as its own events had set them (the sale's state at that
 * instant), and those changes (the SKU's ledger), oldest first, paged. The ledger is kept by the
 * stock projection from the event stream, one entry per event and SKU; each entry names the event's
 * global index, so it can be checked against the event store.
 */
@RestController
@RequestMapping("/api/audit/skus")
class StockAuditController {

  /** The SKU's numbers at {@code at}, and one page of its ledger up to then. */
  record SkuAudit(
      String skuId,
      Instant at,
      long total,
      long available,
      long reserved,
      long sold,
      Integer perUserLimit,
      SaleStatus sale,
      List<LedgerEntry> ledger,
      int page,
      int size,
      long totalEntries) {}

  /** One event's change to the SKU. */
  record LedgerEntry(
      String type, Instant timestamp, long globalIndex, String reference, Change change) {}

  /** Added to each number by one event (negative: taken away). */
  record Change(long total, long available, long reserved, long sold) {}

  private final StockLedger stockLedger;
  private final EventStore eventStore;
  private final Clock clock;

  StockAuditController(StockLedger stockLedger, EventStore eventStore) {
    this.stockLedger = stockLedger;
    this.eventStore = eventStore;
    this.clock = Clock.systemUTC();
  }

  @GetMapping("/{skuId}")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_SKU)
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  SkuAudit audit(
      @PathVariable @Identifier String skuId,
      @RequestParam(required = false) String at,
      @RequestParam(defaultValue = "0") @Min(0) @Max(1_000_000) int page,
      @RequestParam(defaultValue = "50") @Min(1) @Max(500) int size) {
    Instant instant = at == null ? clock.instant() : instant(at);
    if (!stockLedger.registered(skuId)) {
      throw new ProblemException(
          HttpStatus.NOT_FOUND,
          QueryProblems.UNKNOWN_SKU,
          "Unknown SKU",
          "SKU " + skuId + " is not in the read model.",
          Map.of("skuId", skuId));
    }
    StockLedger.AsOf asOf = stockLedger.asOf(skuId, instant);
    StockChanges.Settings settings = settingsAsOf(skuId, instant);
    StockChanges.Settings.Window window = settings.window();
    StockChanges.Settings.Pause pause = settings.pause();
    SaleStatus sale =
        SaleStatus.at(
            instant,
            window == null ? null : window.opensAt(),
            window == null ? null : window.closesAt(),
            window == null ? 0 : window.prequeueSeconds(),
            pause != null && pause.paused(),
            pause == null ? null : pause.reason());
    List<LedgerEntry> ledger =
        stockLedger.ledger(skuId, instant, page, size).stream()
            .map(
                entry ->
                    new LedgerEntry(
                        entry.type(),
                        entry.timestamp(),
                        entry.globalIndex(),
                        entry.reference(),
                        new Change(
                            entry.total(),
                            entry.total() - entry.reserved() - entry.sold(),
                            entry.reserved(),
                            entry.sold())))
            .toList();
    return new SkuAudit(
        skuId,
        instant,
        asOf.total(),
        asOf.total() - asOf.reserved() - asOf.sold(),
        asOf.reserved(),
        asOf.sold(),
        settings.limit() == null ? null : settings.limit().perUserLimit(),
        sale,
        ledger,
        page,
        size,
        asOf.entries());
  }

  /**
   * What the SKU's own events up to {@code at} set of its sale and limit, folded as the stock view
   * folds them ({@link StockChanges}): its stream is short (registration, sale changes,
   * replenishments and adjustments), read from the event store.
   */
  private StockChanges.Settings settingsAsOf(String skuId, Instant at) {
    StockChanges.Settings[] settings = {StockChanges.Settings.NONE};
    StockChanges.Target fold = (change, set) -> settings[0] = settings[0].then(set);
    eventStore
        .readEvents(SkuEvent.streamId(skuId), 0)
        .asStream()
        .filter(event -> !event.getTimestamp().isAfter(at))
        .forEach(
            event ->
                StockChanges.apply(
                    event.getPayload(), event.getIdentifier(), event.getTimestamp(), fold));
    return settings[0];
  }

  private static Instant instant(String at) {
    Instant instant;
    try {
      instant = Instant.parse(at);
    } catch (DateTimeParseException e) {
      throw invalidAt(
          "at must be an ISO-8601 instant in UTC, such as 2026-11-30T10:00:00Z",
          "must be an ISO-8601 UTC instant");
    }
    if (!StockLedger.holds(instant)) {
      // Compared with the ledger's times, such an instant matches no entry: all zeros.
      throw invalidAt(
          "at must be an instant from the year 1000 to the year 9999 (UTC)",
          "must be from the year 1000 to the year 9999");
    }
    return instant;
  }

  private static ProblemException invalidAt(String detail, String message) {
    return new ProblemException(
        HttpStatus.BAD_REQUEST,
        ProblemCodes.INVALID_REQUEST,
        "Invalid request",
        detail,
        Map.of("errors", List.of(Map.of("field", "at", "message", message))));
  }
}
