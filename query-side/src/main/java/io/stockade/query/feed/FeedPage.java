package io.stockade.query.feed;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * A page of the feed: the events after the position asked for, oldest first, and where to go on.
 *
 * @param events the events, none skipped; fewer than asked for (perhaps none) when the next event
 *     may still be committed below a later one
 * @param next the position of the last event of the page, or the one asked for when the page is
 *     empty: ask {@code after} it next time
 */
record FeedPage(
    List<FeedEvent> events,
    @Schema(description = "the position to ask after next time") long next) {}
