package io.stockade.bench.engines;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.redis.StandaloneGate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Engine (d): Stockade's admission gate, the real gate ({@code GateReserve}, wired by {@code
 * GateOperations}) over one shared Lettuce connection as in the service. Every attempt reserves one
 * unit under a new reservation id (one {@code reserve.lua} call: an admission writes its intent
 * record and lists it as pending); the SKU is registered through the gate's {@code register.lua},
 * with no per-user limit.
 */
final class GateEngine implements Engine {

  private static final Duration HOLD = Duration.ofMinutes(15);

  private final StandaloneGate standalone;
  private final String prefix;

  GateEngine(String host, int port, String prefix) {
    this.standalone = new StandaloneGate(host, port, Duration.ofSeconds(5));
    this.prefix = prefix;
  }

  @Override
  public String name() {
    return "gate";
  }

  @Override
  public String description() {
    return "Stockade: GateReserve.reserve, one Lua script call (intent recorded)";
  }

  @Override
  public void stock(String sku, long units) {
    standalone.gate().stock().register(sku, units, null, 1);
  }

  @Override
  public boolean attempt(String sku, String user, long attempt) {
    Admission admission =
        new Admission(
            sku + "-" + attempt, user, List.of(new ReservationLine(sku, 1)), HOLD, Instant.now());
    return standalone.gate().reserve().reserve(admission).accept(new Verdict(sku));
  }

  /**
   * The units the gate's counters say were taken; they must also show as reserved, every unit being
   * in exactly one of available, reserved or sold.
   */
  @Override
  public long taken(String sku, long stocked) {
    Map<Object, Object> counters = standalone.counters(sku);
    long available = count(counters, "available");
    long reserved = count(counters, "reserved");
    long sold = count(counters, "sold");
    if (available + reserved + sold != stocked || sold != 0) {
      throw new IllegalStateException(
          "The gate's counters of " + sku + " do not add up to " + stocked + ": " + counters);
    }
    return reserved;
  }

  /** Deletes the run's keys (and takes its intents off the pending set), then disconnects. */
  @Override
  public void close() {
    try {
      System.out.printf(
          "gate cleanup: %d keys of %s unlinked%n", standalone.forget(prefix), prefix);
    } finally {
      standalone.close();
    }
  }

  private static long count(Map<Object, Object> counters, String field) {
    Object value = counters.get(field);
    if (value == null) {
      throw new IllegalStateException("The gate's counters have no " + field + ": " + counters);
    }
    return Long.parseLong(value.toString());
  }

  /** Admitted is true, sold out is false; any other answer is an error of the run. */
  private record Verdict(String sku) implements AdmissionDecision.Cases<Boolean> {

    @Override
    public Boolean admitted(AdmissionDecision.Admitted admitted) {
      return true;
    }

    @Override
    public Boolean insufficient(AdmissionDecision.Insufficient insufficient) {
      return false;
    }

    @Override
    public Boolean duplicate(AdmissionDecision.Duplicate duplicate) {
      throw unexpected(duplicate);
    }

    @Override
    public Boolean reused(AdmissionDecision.Reused reused) {
      throw unexpected(reused);
    }

    @Override
    public Boolean abandoned(AdmissionDecision.Abandoned abandoned) {
      throw unexpected(abandoned);
    }

    @Override
    public Boolean limitExceeded(AdmissionDecision.LimitExceeded limitExceeded) {
      throw unexpected(limitExceeded);
    }

    @Override
    public Boolean unknownSku(AdmissionDecision.UnknownSku unknownSku) {
      throw unexpected(unknownSku);
    }

    @Override
    public Boolean saleNotOpen(AdmissionDecision.SaleNotOpen saleNotOpen) {
      throw unexpected(saleNotOpen);
    }

    @Override
    public Boolean saleClosed(AdmissionDecision.SaleClosed saleClosed) {
      throw unexpected(saleClosed);
    }

    @Override
    public Boolean salePaused(AdmissionDecision.SalePaused salePaused) {
      throw unexpected(salePaused);
    }

    @Override
    public Boolean queued(AdmissionDecision.Queued queued) {
      throw unexpected(queued);
    }

    @Override
    public Boolean drawInProgress(AdmissionDecision.DrawInProgress drawInProgress) {
      throw unexpected(drawInProgress);
    }

    @Override
    public Boolean unavailable(AdmissionDecision.Unavailable unavailable) {
      throw unexpected(unavailable);
    }

    @Override
    public Boolean rateLimited(AdmissionDecision.RateLimited rateLimited) {
      throw unexpected(rateLimited);
    }

    private IllegalStateException unexpected(AdmissionDecision decision) {
      return new IllegalStateException("Gate answered " + decision + " for " + sku);
    }
  }
}
