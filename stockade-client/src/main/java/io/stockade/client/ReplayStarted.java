package io.stockade.client;

/** {@code POST /api/replays}: 202 with the replay's id. */
public record ReplayStarted(String replayId) {}
