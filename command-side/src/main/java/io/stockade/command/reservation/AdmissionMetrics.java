package io.stockade.command.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.stockade.command.CommandProblems;
import io.stockade.command.admission.AdmissionDecision;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;

/**
 * What reservations came to: the counter {@code stockade.admissions} by {@code outcome} (admitted,
 * duplicate, refused, unavailable, failed) and {@code reason} (the problem code the caller got, or
 * {@code none}), and the timer {@code stockade.gate.latency} of the gate's reserve call. Every tag
 * value is one of a fixed set, and the meters are built once.
 */
@Component
class AdmissionMetrics {

  private final Counter admitted;
  private final Counter duplicate;
  private final Counter reused;
  private final Counter abandoned;
  private final Counter insufficient;
  private final Counter limitExceeded;
  private final Counter unknownSku;
  private final Counter unavailable;
  private final Counter saleNotOpen;
  private final Counter saleClosed;
  private final Counter salePaused;
  private final Counter queued;
  private final Counter drawInProgress;
  private final Counter failed;
  private final Timer gateLatency;
  private final AdmissionDecision.Cases<Counter> counters = new Counters();

  AdmissionMetrics(MeterRegistry meters) {
    admitted = counter(meters, "admitted", "none");
    duplicate = counter(meters, "duplicate", "none");
    reused = counter(meters, "refused", CommandProblems.RESERVATION_ID_REUSED);
    abandoned = counter(meters, "refused", CommandProblems.RESERVATION_NOT_ACTIVE);
    insufficient = counter(meters, "refused", CommandProblems.INSUFFICIENT_STOCK);
    limitExceeded = counter(meters, "refused", CommandProblems.PURCHASE_LIMIT_EXCEEDED);
    unknownSku = counter(meters, "refused", CommandProblems.UNKNOWN_SKU);
    unavailable = counter(meters, "unavailable", CommandProblems.GATE_UNAVAILABLE);
    saleNotOpen = counter(meters, "refused", CommandProblems.SALE_NOT_OPEN);
    saleClosed = counter(meters, "refused", CommandProblems.SALE_CLOSED);
    salePaused = counter(meters, "refused", CommandProblems.SALE_PAUSED);
    queued = counter(meters, "queued", "none");
    drawInProgress = counter(meters, "unavailable", CommandProblems.DRAW_IN_PROGRESS);
    failed = counter(meters, "failed", "recording-failed");
    gateLatency =
        Timer.builder("stockade.gate.latency")
            .description("Time of the admission gate's reserve call (one Redis script)")
            .tag("operation", "reserve")
            .publishPercentileHistogram()
            .register(meters);
  }

  private static Counter counter(MeterRegistry meters, String outcome, String reason) {
    return Counter.builder("stockade.admissions")
        .description("Reservation requests by what they came to")
        .tag("outcome", outcome)
        .tag("reason", reason)
        .register(meters);
  }

  AdmissionDecision timeGate(Supplier<AdmissionDecision> call) {
    return gateLatency.record(call);
  }

  void decided(AdmissionDecision decision) {
    Counter counter = decision.accept(counters);
    if (counter != null) {
      counter.increment();
    }
  }

  void recordingFailed() {
    failed.increment();
  }

  private final class Counters implements AdmissionDecision.Cases<Counter> {

    @Override
    public Counter admitted(AdmissionDecision.Admitted decision) {
      return admitted;
    }

    @Override
    public Counter duplicate(AdmissionDecision.Duplicate decision) {
      return duplicate;
    }

    @Override
    public Counter reused(AdmissionDecision.Reused decision) {
      return reused;
    }

    @Override
    public Counter abandoned(AdmissionDecision.Abandoned decision) {
      return abandoned;
    }

    @Override
    public Counter insufficient(AdmissionDecision.Insufficient decision) {
      return insufficient;
    }

    @Override
    public Counter limitExceeded(AdmissionDecision.LimitExceeded decision) {
      return limitExceeded;
    }

    @Override
    public Counter unknownSku(AdmissionDecision.UnknownSku decision) {
      return unknownSku;
    }

    @Override
    public Counter unavailable(AdmissionDecision.Unavailable decision) {
      return unavailable;
    }

    @Override
    public Counter saleNotOpen(AdmissionDecision.SaleNotOpen decision) {
      return saleNotOpen;
    }

    @Override
    public Counter saleClosed(AdmissionDecision.SaleClosed decision) {
      return saleClosed;
    }

    @Override
    public Counter salePaused(AdmissionDecision.SalePaused decision) {
      return salePaused;
    }

    /**
     * None: a request refused by its rate limits reached no decision, and is counted by the limits'
     * own {@code stockade.rate-limit.refusals}, whether the gate or the limits' own call found it
     * short.
     */
    @Override
    public Counter rateLimited(AdmissionDecision.RateLimited decision) {
      return null;
    }

    @Override
    public Counter queued(AdmissionDecision.Queued decision) {
      return queued;
    }

    @Override
    public Counter drawInProgress(AdmissionDecision.DrawInProgress decision) {
      return drawInProgress;
    }
  }
}
