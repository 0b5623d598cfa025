package io.stockade.client;

import java.util.List;

/**
 * {@code GET /api/events}: the events after a position, oldest first.
 *
 * @param next the position to ask after next time
 */
public record FeedPage(List<FeedEvent> events, long next) {}
