package io.stockade.query.feed;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The settings of the Kafka publisher ({@code stockade.kafka.*}); it runs only when {@code
 * bootstrap-servers} is set.
 *
 * @param bootstrapServers the brokers, {@code host:port,...}
 * @param topic the topic every event goes to (created when missing)
 * @param partitions the partitions of the topic when the publisher creates it
 * @param replicationFactor its replicas when the publisher creates it (0: the broker's default)
 * @param source the CloudEvents {@code ce_source} of every record
 * @param transactionalId the producer's transactional id, the same on every instance: a new
 *     publisher fences the one before it
 * @param pollInterval how often the publisher looks for new events when it has published them all
 *     (an instance that is not publishing tries to take over every fifth of the token store's claim
 *     timeout)
 * @param retryInterval how long the publisher waits after the broker or the database failed
 * @param properties further client settings (security, timeouts), handed to Kafka's producer,
 *     consumer and admin client as they are
 */
@ConfigurationProperties("stockade.kafka")
record KafkaPublishing(
    String bootstrapServers,
    @DefaultValue("stockade.events") String topic,
    @DefaultValue("3") int partitions,
    @DefaultValue("0") short replicationFactor,
    @DefaultValue("/stockade") String source,
    @DefaultValue("stockade-publisher") String transactionalId,
    @DefaultValue("200ms") Duration pollInterval,
    @DefaultValue("2s") Duration retryInterval,
    Map<String, String> properties) {

  KafkaPublishing {
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }
}
