package io.stockade.bench.bare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.stockade.gatekeys.PartitionKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * The smallest program doing a refusal's essential work, as a floor for the command side's
 * refusals: read the JSON body, verify the bearer JWT (RS256 with the same public key, by Nimbus
 * JOSE as Spring Security does, and its expiry), run the service's own {@code reserve.lua} by
 * EVALSHA with Lettuce on the same Redis with the same keys and arguments the service passes for
 * that SKU, and answer its outcome as the service's problem JSON (409 insufficient-stock). No
 * validation beyond that, no metrics, no logging, no framework: whatever the service spends above
 * this is its own.
 *
 * <p>{@code mode=fixed} answers every request with the same 409 body after reading the request: the
 * JDK HTTP server's own floor. Run with {@code -Dsun.net.httpserver.nodelay=true}: without it,
 * delayed ACKs hold the JDK's server to a few hundred requests a second.
 *
 * <p>Arguments ({@code name=value}): {@code port}, {@code mode} (gate or fixed), {@code threads}
 * (the server's executor, 16), {@code redisPort}, {@code publicKey} (PEM file), {@code script}
 * ({@code reserve.lua}), {@code tag} (the gate partition's hash tag, {@code g0} for one partition),
 * {@code partition} (its index, 0), {@code holdMillis} (the service's default hold, 900000).
 */
public final class BareRefusal {

  private static final ObjectMapper JSON = new ObjectMapper();

  private BareRefusal() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> arguments = new HashMap<>();
    for (String arg : args) {
      int equals = arg.indexOf('=');
      arguments.put(arg.substring(0, equals), arg.substring(equals + 1));
    }
    int port = Integer.parseInt(arguments.get("port"));
    String mode = arguments.getOrDefault("mode", "gate");
    int threads = Integer.parseInt(arguments.getOrDefault("threads", "16"));
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
    server.setExecutor(Executors.newFixedThreadPool(threads));
    if (mode.equals("fixed")) {
      byte[] body = problem("fixed-sku", 0).getBytes(StandardCharsets.UTF_8);
      server.createContext(
          "/api/reservations",
          exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
              in.readAllBytes();
            }
            respond(exchange, 409, body);
          });
    } else {
      Gate gate = new Gate(arguments);
      server.createContext("/api/reservations", gate::handle);
    }
    server.start();
    System.out.println("READY bare " + mode + " on 127.0.0.1:" + port);
  }

  private static void respond(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/problem+json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** The service's problem for a refusal for want of stock (ReservationController). */
  static String problem(String skuId, int lineIndex) {
    return "{\"type\":\"https://stockade.io/problems/insufficient-stock\",\"title\":\"Insufficient"
        + " stock\",\"status\":409,\"detail\":\"Not enough stock of SKU "
        + skuId
        + "; nothing was reserved.\",\"instance\":\"/api/reservations\",\"skuId\":\""
        + skuId
        + "\",\"lineIndex\":"
        + lineIndex
        + "}";
  }

  /** The refusal's work: JSON, JWT, reserve.lua, problem JSON. */
  private static final class Gate {

    private final RSASSAVerifier verifier;
    private final RedisCommands<String, String> redis;
    private final String sha;
    private final PartitionKeys keys;
    // The partition's keys that are the same for every request, named once.
    private final String marker;
    private final String sequence;
    private final String pending;
    private final String decisions;
    private final String dropped;
    private final String partition;
    private final String epoch;
    private final String holdMillis;

    Gate(Map<String, String> arguments) throws Exception {
      String pem = Files.readString(Path.of(arguments.get("publicKey")));
      byte[] der =
          Base64.getDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
      RSAPublicKey key =
          (RSAPublicKey) KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der));
      verifier = new RSASSAVerifier(key);
      RedisClient client = RedisClient.create("redis://127.0.0.1:" + arguments.get("redisPort"));
      StatefulRedisConnection<String, String> connection = client.connect();
      redis = connection.sync();
      sha = redis.scriptLoad(Files.readString(Path.of(arguments.get("script"))));
      keys = PartitionKeys.of(arguments.getOrDefault("tag", "g0"));
      marker = keys.marker();
      sequence = keys.sequence();
      pending = keys.pending();
      decisions = keys.decisions();
      dropped = keys.dropped();
      partition = arguments.getOrDefault("partition", "0");
      holdMillis = arguments.getOrDefault("holdMillis", "900000");
      // The epoch the service opened the gate in: every script checks it first.
      epoch = redis.hget(marker, "epoch");
      if (epoch == null) {
        throw new IllegalStateException("Redis holds no gate epoch at " + marker);
      }
    }

    void handle(HttpExchange exchange) throws IOException {
      try {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
          body = in.readAllBytes();
        }
        if (!authorized(exchange.getRequestHeaders().getFirst("Authorization"))) {
          respond(exchange, 401, new byte[0]);
          return;
        }
        JsonNode request = JSON.readTree(body);
        String reservationId = request.get("reservationId").asText();
        String userId = request.get("userId").asText();
        JsonNode line = request.get("lines").get(0);
        String skuId = line.get("skuId").asText();
        long quantity = line.get("quantity").asLong();
        // As GateReserve.reservePart (command-side): the marker first, then intent, sequence,
        // pending, decisions, the gap of dropped refusals, the SKU's counters and holders; the
        // epoch, no token bucket (a
        // refusal's essential work has no rate limits), then user, fingerprint
        // (Admission.fingerprint), now, hold, sequence 0 (take one), the partition, the decision
        // backlog, the line.
        String[] scriptKeys = {
          marker,
          keys.intent(reservationId),
          sequence,
          pending,
          decisions,
          dropped,
          keys.counters(skuId),
          keys.holders(skuId)
        };
        String[] values = {
          epoch,
          "0",
          userId,
          userId + "|" + holdMillis + "|" + skuId + "=" + quantity,
          String.valueOf(System.currentTimeMillis()),
          holdMillis,
          "0",
          partition,
          "1000000",
          "1",
          skuId,
          String.valueOf(quantity)
        };
        List<Object> reply = redis.evalsha(sha, ScriptOutputType.MULTI, scriptKeys, values);
        long code = (Long) reply.get(0);
        if (code == 4) {
          respond(
              exchange,
              409,
              problem(skuId, ((Long) reply.get(1)).intValue()).getBytes(StandardCharsets.UTF_8));
        } else {
          // Not the refusal path: the bench counts these statuses as unexpected.
          respond(exchange, code == 1 ? 201 : 500, ("{\"reply\":\"" + reply + "\"}").getBytes());
        }
      } catch (RuntimeException e) {
        respond(exchange, 500, String.valueOf(e).getBytes(StandardCharsets.UTF_8));
      }
    }

    private boolean authorized(String header) {
      if (header == null || !header.startsWith("Bearer ")) {
        return false;
      }
      try {
        SignedJWT jwt = SignedJWT.parse(header.substring(7));
        if (!JWSAlgorithm.RS256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier)) {
          return false;
        }
        JWTClaimsSet claims = jwt.getJWTClaimsSet();
        return claims.getExpirationTime() == null || claims.getExpirationTime().after(new Date());
      } catch (java.text.ParseException | com.nimbusds.jose.JOSEException e) {
        return false;
      }
    }
  }
}
