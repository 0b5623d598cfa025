package io.stockade.command.reservation;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Limits of one reservation request ({@code stockade.reservation.*}).
 *
 * @param maxLines lines per reservation, after merging lines of the same SKU
 * @param maxQuantity units per line, after merging
 * @param defaultHold how long an unconfirmed reservation holds its units when the request does not
 *     say
 * @param maxHold the longest hold a request may ask for
 */
@ConfigurationProperties("stockade.reservation")
record ReservationRules(
    @DefaultValue("100") int maxLines,
    @DefaultValue("1000000") int maxQuantity,
    @DefaultValue("900s") Duration defaultHold,
    @DefaultValue("24h") Duration maxHold) {}
