package io.stockade.command.admission.decisions;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the gate's decision log ({@code stockade.decisions.*}); how many decisions Redis
 * holds at most while they wait is {@code stockade.gate.decision-backlog}.
 *
 * @param retention how long decisions are kept in the database
 * @param drainInterval how often each instance moves the decisions from Redis to the database:
 *     about what a Redis that loses its data can take of the refusals (admitted decisions are
 *     restored from the record)
 * @param drainBatch entries moved in one transaction
 */
@ConfigurationProperties("stockade.decisions")
record DecisionLogProperties(
    @DefaultValue("30d") Duration retention,
    @DefaultValue("200ms") Duration drainInterval,
    @DefaultValue("5000") int drainBatch) {}
