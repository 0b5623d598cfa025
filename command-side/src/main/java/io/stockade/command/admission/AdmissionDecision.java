package io.stockade.command.admission;

import java.time.Duration;
import java.time.Instant;

/**
 * The gate's answer to one {@link Admission}. Callers read it through {@link #accept(Cases)}, which
 * makes them say what happens in every case.
 */
public sealed interface AdmissionDecision {

  /** One method per outcome; the compiler keeps callers complete when an outcome is added. */
  interface Cases<T> {

    T admitted(Admitted admitted);

    T duplicate(Duplicate duplicate);

    T reused(Reused reused);

    T abandoned(Abandoned abandoned);

    T insufficient(Insufficient insufficient);

    T limitExceeded(LimitExceeded limitExceeded);

    T unknownSku(UnknownSku unknownSku);

    T unavailable(Unavailable unavailable);

    T rateLimited(RateLimited rateLimited);

    T saleNotOpen(SaleNotOpen saleNotOpen);

    T saleClosed(SaleClosed saleClosed);

    T salePaused(SalePaused salePaused);

    T queued(Queued queued);

    T drawInProgress(DrawInProgress drawInProgress);
  }

  <T> T accept(Cases<T> cases);

  /**
   * Every line was taken; the reservation must now be recorded.
   *
   * @param gateEpoch the epoch of the gate that admitted it: the record accepts it only while the
   *     gate is still in that epoch (see {@link AdmissionFence})
   */
  record Admitted(long sequence, Instant admittedAt, Instant expiresAt, long gateEpoch)
      implements AdmissionDecision {

    /** The admission every later step of the reservation names. */
    public AdmissionId admission() {
      return new AdmissionId(sequence, gateEpoch);
    }

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.admitted(this);
    }
  }

  /**
   * This reservation was admitted before with the same content; nothing was taken again.
   *
   * @param recording true when it is still reserved and not known to be stored (its first attempt
   *     may have failed): the caller is counted as one of its recorders and must store it, or
   *     {@link ReservationTransitions#withdraw withdraw} when that fails before any commit
   * @param gateEpoch the epoch of the gate that admitted it first (not necessarily the gate's epoch
   *     now, for a reservation the gate was rebuilt with)
   */
  record Duplicate(
      long sequence,
      Instant admittedAt,
      Instant expiresAt,
      String state,
      boolean recording,
      long gateEpoch)
      implements AdmissionDecision {

    /** The admission every later step of the reservation names. */
    public AdmissionId admission() {
      return new AdmissionId(sequence, gateEpoch);
    }

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.duplicate(this);
    }
  }

  /** The reservation id was admitted before with other content. */
  record Reused() implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.reused(this);
    }
  }

  /**
   * The reservation id was admitted before and never recorded: the recovery sweeper stored its
   * tombstone ({@code ReservationAbandoned}) and gave its units back. Nothing is held under it, and
   * nothing can be: its stream is taken.
   */
  record Abandoned() implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.abandoned(this);
    }
  }

  /** The line at {@code lineIndex} (0-based, merged) asks for more than is available. */
  record Insufficient(String skuId, int lineIndex) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.insufficient(this);
    }
  }

  /** The user would hold more than {@code limit} units of the SKU. */
  record LimitExceeded(String skuId, int lineIndex, long limit, long alreadyHeld)
      implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.limitExceeded(this);
    }
  }

  /** The gate has no counters for the SKU of that line. */
  record UnknownSku(String skuId, int lineIndex) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.unknownSku(this);
    }
  }

  /** The gate cannot decide safely now (Redis down or slow); nothing was taken. */
  record Unavailable(String reason) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.unavailable(this);
    }
  }

  /**
   * The admission's token bucket at {@code bucket} (0-based, in {@link Admission#buckets()}'s
   * order; the first short one) holds less than one token: nothing was taken, and no decision
   * recorded. Every short bucket holds a token again after {@code retryAfter}.
   */
  record RateLimited(int bucket, Duration retryAfter) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.rateLimited(this);
    }
  }

  /**
   * The sale of the line's SKU has not opened yet by the gate's clock (Redis {@code TIME}): it
   * opens at {@code opensAt}, and {@code now} is the gate's time when it refused (for a
   * Retry-After).
   */
  record SaleNotOpen(String skuId, int lineIndex, Instant opensAt, Instant now)
      implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.saleNotOpen(this);
    }
  }

  /** The sale of the line's SKU closed at {@code closesAt}, by the gate's clock. */
  record SaleClosed(String skuId, int lineIndex, Instant closesAt) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.saleClosed(this);
    }
  }

  /** The sale of the line's SKU is paused. */
  record SalePaused(String skuId, int lineIndex) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.salePaused(this);
    }
  }

  /**
   * Every line is a SKU in its pre-queue, all opening at {@code opensAt}: the reservation is not
   * decided now but queued for the draw (nothing was taken, no decision made). {@code now} is the
   * gate's time.
   *
   * @param drawCommitment the draw's commitment once the reservation is queued in the record;
   *     {@code null} in the gate's answer, which only says it is to be queued
   */
  record Queued(Instant opensAt, Instant now, String drawCommitment) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.queued(this);
    }
  }

  /**
   * The line's SKU opened at {@code opensAt} with a pre-queue whose draw is not decided yet:
   * reservations arriving after the opening wait for the whole queue (nothing taken, no decision).
   */
  record DrawInProgress(String skuId, int lineIndex, Instant opensAt) implements AdmissionDecision {

    @Override
    public <T> T accept(Cases<T> cases) {
      return cases.drawInProgress(this);
    }
  }
}
