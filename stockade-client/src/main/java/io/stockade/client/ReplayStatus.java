package io.stockade.client;

import java.time.Instant;

/**
 * {@code GET /api/replays/{replayId}}.
 *
 * @param status {@code RUNNING}, {@code DONE} or {@code FAILED}
 */
public record ReplayStatus(
    String replayId,
    String status,
    long processed,
    long total,
    int percent,
    Instant requestedAt,
    Instant startedAt,
    Instant finishedAt,
    String failure) {}
