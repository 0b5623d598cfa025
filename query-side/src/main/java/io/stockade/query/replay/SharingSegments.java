package io.stockade.query.replay;

import java.time.Duration;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Shares the projections' segments among the query-side instances alive. Without Axon Server,
 * Axon's pooled processors claim every unclaimed segment they see, so the first instance to start
 * keeps them all and the others only take over when it stops. Each instance beats in {@code
 * query_node}; one that holds more segments of a processor than its share (the segments over the
 * instances alive, rounded up) lets one go for a while, long enough for another instance to claim
 * it. One segment a round, so that the claims settle instead of swinging. An instance not seen for
 * ten times the alive interval (one that crashed, as a stopping one leaves at once) is forgotten:
 * every round deletes such rows, so the table holds the instances of the last while only.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.segments.sharing",
    havingValue = "true",
    matchIfMissing = true)
class SharingSegments implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(SharingSegments.class);

  /** An instance unseen for this many alive intervals is gone for good. */
  private static final int FORGOTTEN_AFTER_ALIVE = 10;

  private final JdbcTemplate jdbc;
  private final EventProcessingConfiguration processing;
  private final ProjectionProcessors projections;
  private final QueryNode node;
  private final Duration alive;
  private final Duration release;

  SharingSegments(
      JdbcTemplate jdbc,
      EventProcessingConfiguration processing,
      ProjectionProcessors projections,
      QueryNode node,
      @Value("${stockade.segments.alive:10s}") Duration alive,
      @Value("${stockade.segments.release:15s}") Duration release) {
    this.jdbc = jdbc;
    this.processing = processing;
    this.projections = projections;
    this.node = node;
    this.alive = alive;
    this.release = release;
  }

  @Scheduled(fixedDelayString = "${stockade.segments.interval:2s}")
  void share() {
    try {
      jdbc.update(
          "insert into query_node (name, seen_at) values (?, utc_timestamp(6))"
              + " on duplicate key update seen_at = utc_timestamp(6)",
          node.name());
      jdbc.update(
          "delete from query_node where seen_at < timestampadd(microsecond, ?, utc_timestamp(6))",
          -alive.multipliedBy(FORGOTTEN_AFTER_ALIVE).toNanos() / 1000);
      Integer instances =
          jdbc.queryForObject(
              "select count(*) from query_node"
                  + " where seen_at > timestampadd(microsecond, ?, utc_timestamp(6))",
              Integer.class,
              -alive.toNanos() / 1000);
      for (String name : projections.names()) {
        processing
            .eventProcessor(name, StreamingEventProcessor.class)
            .ifPresent(processor -> share(name, processor, instances == null ? 1 : instances));
      }
    } catch (RuntimeException e) {
      log.debug("Segments not shared this round", e);
    }
  }

  private void share(String name, StreamingEventProcessor processor, int instances) {
    if (!processor.isRunning() || instances < 2) {
      return;
    }
    Map<Integer, EventTrackerStatus> claimed = processor.processingStatus();
    Integer segments =
        jdbc.queryForObject(
            "select count(*) from token_entry where processor_name = ?", Integer.class, name);
    int share = (int) Math.ceil((segments == null ? 0 : segments) / (double) instances);
    if (claimed.size() > share && share > 0) {
      int segment = new TreeSet<>(claimed.keySet()).last();
      processor.releaseSegment(segment, release.toMillis(), TimeUnit.MILLISECONDS);
      log.info(
          "Released segment {} of {} for another instance: {} claimed here, {} instances alive",
          segment,
          name,
          claimed.size(),
          instances);
    }
  }

  /** A stopping instance leaves at once, so that the others take its share without waiting. */
  @Override
  public void destroy() {
    try {
      jdbc.update("delete from query_node where name = ?", node.name());
    } catch (RuntimeException e) {
      log.debug("Could not leave query_node", e);
    }
  }
}
