package io.stockade.query.feed;

import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.ProblemResponses;
import io.stockade.platform.web.ProblemResponses.FieldProblem;
import io.stockade.query.QueryProblems;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The event feed for downstream services: every stored event, of every type, oldest first, each
 * once, paged by position or streamed. Not a read model: it reads the event store itself, so it
 * stays available during a replay.
 */
@RestController
@RequestMapping("/api/events")
class EventFeedController {

  private static final String FEED =
      " Events of every type, by position (the event store's global index). The feed never skips"
          + " an event: it answers only up to a position below which no transaction can still add"
          + " one, so a consumer that always asks after=next sees every event exactly once, in"
          + " order. aggregateId is the aggregate's own id (a reservation's or a SKU's, as in the"
          + " payload), aggregateType its type (Reservation, Sku, QueuedReservation: a"
          + " reservation's stream while it waits in a pre-queue, its id the reservation's).";

  private final EventFeed feed;
  private final EventStreams streams;

  EventFeedController(EventFeed feed, EventStreams streams) {
    this.feed = feed;
    this.streams = streams;
  }

  @GetMapping
  @Operation(
      operationId = "events",
      summary = "The stored events after a position, oldest first",
      description =
          "At most limit events after the position after (0: from the first), and next, the"
              + " position to ask after next time. A page may hold fewer events than asked for, or"
              + " none with next unchanged, while the next event may still commit below a later"
              + " one; ask again."
              + FEED)
  @ApiResponse(responseCode = "200", description = "A page of the feed", useReturnTypeSchema = true)
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  FeedPage events(
      @Parameter(description = "the position of the last event already seen; 0 for the first")
          @RequestParam(defaultValue = "0")
          @Min(0)
          long after,
      @RequestParam(defaultValue = "100") @Min(1) @Max(EventFeed.MOST) int limit) {
    return feed.read(after, limit);
  }

  @GetMapping(path = "/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  @Operation(
      operationId = "eventStream",
      summary = "The stored events after a position, then every new one, as server-sent events",
      description =
          "Each event once, in order, as an SSE event named event whose id is its position and"
              + " whose data is the JSON of one element of GET /api/events; comments (heartbeat)"
              + " while nothing is sent. A reconnecting client sends Last-Event-ID, which wins over"
              + " after."
              + FEED)
  @ApiResponse(
      responseCode = "200",
      description = "The stream",
      content =
          @Content(
              mediaType = MediaType.TEXT_EVENT_STREAM_VALUE,
              schema = @Schema(implementation = FeedEvent.class)))
  @Problem(
      status = 503,
      codes = {QueryProblems.TOO_MANY_STREAMS, QueryProblems.READ_MODEL_UNAVAILABLE})
  SseEmitter stream(
      @Parameter(description = "the position of the last event already seen; 0 for the first")
          @RequestParam(defaultValue = "0")
          @Min(0)
          long after,
      @Parameter(description = "the id of the last event received: resumes after it")
          @RequestHeader(name = "Last-Event-ID", required = false)
          String lastEventId) {
    return streams.subscribe(lastEventId == null ? after : position(lastEventId));
  }

  /** The position a {@code Last-Event-ID} names: an id this stream sent, a whole number. */
  private static long position(String lastEventId) {
    String id = lastEventId.strip();
    if (!id.isEmpty() && id.length() <= 19 && id.chars().allMatch(c -> c >= '0' && c <= '9')) {
      try {
        return Long.parseLong(id);
      } catch (NumberFormatException beyond) {
        // Above Long.MAX_VALUE: no event has that position.
      }
    }
    throw ProblemResponses.invalidRequest(
        List.of(
            new FieldProblem(
                "Last-Event-ID", "must be the id of an event of this stream, a position from 0")));
  }
}
