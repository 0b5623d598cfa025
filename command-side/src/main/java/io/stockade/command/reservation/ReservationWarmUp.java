package io.stockade.command.reservation;

import io.stockade.platform.security.Roles;
import io.stockade.platform.warmup.WarmUpRequests;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

/**
 * The flash sale's hottest path for the warm-up: reservations refused by the gate, each of a new
 * reservation and a new user, as under load. They name a SKU made up at start, which no one has
 * registered (a random UUID), so the gate answers 404 {@code unknown-sku} and writes nothing: no
 * intent, no counter, no decision, no event (or 503 {@code gate-unavailable} while Redis answers a
 * cold JVM too slowly, which reserves nothing either). The rate limits count them like any request
 * (short- lived buckets of made-up users, and of the client {@code stockade-warm-up}). Sent once
 * the gate is open, so that each one runs the gate's script.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.warm-up.enabled",
    havingValue = "true",
    matchIfMissing = true)
class ReservationWarmUp implements WarmUpRequests {

  private final HealthIndicator gate;
  private final String prefix = "warm-up-" + UUID.randomUUID();

  ReservationWarmUp(@Qualifier("gate") HealthIndicator gate) {
    this.gate = gate;
  }

  @Override
  public List<String> roles() {
    return List.of(Roles.CLIENT);
  }

  @Override
  public boolean ready() {
    return Status.UP.equals(gate.health().getStatus());
  }

  @Override
  public Request request(long n) {
    String id = prefix + "-" + n;
    return new Request(
        "POST",
        "api/reservations",
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\""
            + id
            + "\",\"lines\":[{\"skuId\":\""
            + prefix
            + "\",\"quantity\":1}]}",
        Set.of(404, 503));
  }
}
