package io.stockade.api.sku;

import java.time.Instant;

/**
 * A SKU's sale as its stream says after a sale command, with the versions the gate must hold: each
 * the sequence number, in the SKU's stream, of the latest event that set that part (-1: none).
 *
 * @param changed whether the command stored an event (a repeat stores none)
 * @param opensAt null for a SKU on sale from its registration
 * @param closesAt null for no end
 * @param pausedReason null when not paused or when no reason was given
 * @param perUserLimit null for no limit
 * @param drawCommitment the commitment to the seed of the pre-queue's draw, null without one
 */
public record SaleSettings(
    String skuId,
    boolean changed,
    Instant opensAt,
    Instant closesAt,
    int prequeueSeconds,
    long scheduleVersion,
    boolean paused,
    String pausedReason,
    long pauseVersion,
    Integer perUserLimit,
    long limitVersion,
    String drawCommitment) {}
