package io.stockade.command.admission.rebuild;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the gate's checkpoints ({@code stockade.gate.checkpoint.*}, {@link
 * GateCheckpointWriter}).
 *
 * @param enabled whether this instance takes checkpoints (a rebuild reads them whatever this says)
 * @param everyEvents a checkpoint is due once the settled position is this many global indices past
 *     the last one
 * @param every a checkpoint is due this long after the last one, if any event came since
 * @param checkInterval how often an instance checks whether one is due
 * @param keep how many checkpoints are kept; older ones are deleted
 */
@ConfigurationProperties("stockade.gate.checkpoint")
record GateCheckpointProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("100000") long everyEvents,
    @DefaultValue("10m") Duration every,
    @DefaultValue("30s") Duration checkInterval,
    @DefaultValue("3") int keep) {}
