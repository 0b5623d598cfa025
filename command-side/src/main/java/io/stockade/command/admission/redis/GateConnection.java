package io.stockade.command.admission.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A gate session's connection to Redis: a connection factory of its own, with client resources of
 * its own (and TLS when the service's Redis settings ask for it), which never reconnects by itself
 * (to the standalone Redis, or to the cluster named by {@code spring.data.redis.cluster.nodes}). A
 * cluster session follows no redirection: a slot served elsewhere than when the session was checked
 * ends it. So no command reaches a server that came back (perhaps with older data) before the
 * keeper has checked it.
 */
public record GateConnection(LettuceConnectionFactory factory, ClientResources resources) {

  /** Connects with the service's Redis settings (timeouts, credentials, database). */
  public static GateConnection open(
      DataRedisConnectionDetails redis, DataRedisProperties redisProperties) {
    Duration timeout = redisProperties.getTimeout();
    Duration connectTimeout = redisProperties.getConnectTimeout();
    SocketOptions.Builder socket = SocketOptions.builder();
    if (connectTimeout != null) {
      socket.connectTimeout(connectTimeout);
    }
    ClientResources resources = DefaultClientResources.create();
    DataRedisConnectionDetails.Cluster cluster = redis.getCluster();
    SslBundle ssl = redis.getSslBundle();
    String url = redisProperties.getUrl();
    if (ssl == null && url != null && url.startsWith("rediss://")) {
      // As Spring Boot's own connections take a rediss:// URL: TLS, the JVM's trust store.
      ssl = SslBundle.systemDefault();
    }
    ClientOptions.Builder common =
        GateConfiguration.rejectWhileDisconnected(
                cluster == null ? ClientOptions.builder() : ClusterClientOptions.builder())
            .autoReconnect(false)
            .socketOptions(socket.build());
    if (ssl != null) {
      common.sslOptions(sslOptions(ssl));
    }
    ClientOptions options =
        cluster == null
            ? common.build()
            : ((ClusterClientOptions.Builder) common).maxRedirects(0).build();
    LettuceClientConfiguration.LettuceClientConfigurationBuilder client =
        LettuceClientConfiguration.builder().clientResources(resources).clientOptions(options);
    if (ssl != null) {
      client.useSsl();
    }
    if (timeout != null) {
      client.commandTimeout(timeout);
    }
    LettuceConnectionFactory factory;
    if (cluster == null) {
      DataRedisConnectionDetails.Standalone standalone = redis.getStandalone();
      RedisStandaloneConfiguration server =
          new RedisStandaloneConfiguration(standalone.getHost(), standalone.getPort());
      server.setDatabase(standalone.getDatabase());
      server.setUsername(redis.getUsername());
      server.setPassword(RedisPassword.of(redis.getPassword()));
      factory = new LettuceConnectionFactory(server, client.build());
    } else {
      RedisClusterConfiguration servers = new RedisClusterConfiguration();
      cluster.getNodes().forEach(node -> servers.clusterNode(node.host(), node.port()));
      servers.setUsername(redis.getUsername());
      servers.setPassword(RedisPassword.of(redis.getPassword()));
      factory = new LettuceConnectionFactory(servers, client.build());
    }
    try {
      factory.afterPropertiesSet();
      factory.start();
    } catch (RuntimeException e) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    }
    return new GateConnection(factory, resources);
  }

  /**
   * TLS as Spring Boot sets it up for its own Redis connections ({@code spring.data.redis.ssl.*},
   * an SSL bundle or the JVM's trust store): the bundle's key and trust managers, ciphers and
   * protocols. Lettuce verifies the server's name against its certificate.
   */
  private static SslOptions sslOptions(SslBundle bundle) {
    SslOptions.Builder ssl =
        SslOptions.builder()
            .keyManager(bundle.getManagers().getKeyManagerFactory())
            .trustManager(bundle.getManagers().getTrustManagerFactory());
    if (bundle.getOptions().getCiphers() != null) {
      ssl.cipherSuites(bundle.getOptions().getCiphers());
    }
    if (bundle.getOptions().getEnabledProtocols() != null) {
      ssl.protocols(bundle.getOptions().getEnabledProtocols());
    }
    return ssl.build();
  }

  public void close() {
    factory.destroy();
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
