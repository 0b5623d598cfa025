package io.stockade.command.ratelimit;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the rate limits ({@code stockade.rate-limit.*}); their values are in {@code
 * application.yml}.
 *
 * @param enabled {@code false}: nothing is limited and Redis is not asked
 * @param user the bucket of each user ({@code userId} of a reservation)
 * @param client the bucket of each calling client (reservations, confirmations and releases)
 * @param clients the buckets of particular clients, by the principal's name (a token's subject), in
 *     place of {@code client}'s: a client of its own weight beside the others
 */
@ConfigurationProperties("stockade.rate-limit")
@Validated
record RateLimitProperties(
    boolean enabled,
    @NotNull @Valid Limit user,
    @NotNull @Valid Limit client,
    Map<String, @Valid Limit> clients) {

  RateLimitProperties {
    clients = clients == null ? Map.of() : Map.copyOf(clients);
  }

  /** The bucket of the client named {@code name}: its own setting, else {@code client}'s. */
  Limit clientLimit(String name) {
    return clients.getOrDefault(name, client);
  }

  /**
   * One token bucket: a request takes a token; the bucket refills continuously.
   *
   * @param capacity the tokens of a full bucket: the burst allowed after a quiet spell
   * @param refillPerSecond tokens added per second: the sustained rate allowed
   */
  record Limit(
      @Min(1) @Max(1_000_000_000) long capacity,
      @DecimalMin("0.000001") @DecimalMax("1000000000") double refillPerSecond) {}
}
