package io.stockade.client.feed;

import io.stockade.client.FeedEvent;

/**
 * Applies one event of the feed. When it returns, the event is done and its position is stored;
 * when it throws, the position stays before it and the event comes again.
 */
@FunctionalInterface
public interface FeedHandler {

  void handle(FeedEvent event) throws Exception;
}
