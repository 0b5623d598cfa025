package io.stockade.platform.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * Bearer tokens for the requests a service sends itself before it is ready (see {@code
 * io.stockade.platform.warmup}): signed by an RSA key pair made at start, in memory only, whose
 * private half never leaves this object. The service accepts them only until {@link #close()},
 * which the warm-up calls when it ends, before the service reports ready; after that no key accepts
 * them and the private half is gone. They are verified as every other token is (RS256, {@code exp}
 * and {@code nbf}), each by the same code a real token goes through, so that the warm-up trains
 * that code too.
 */
public final class WarmUpTokens implements AutoCloseable {

  /** The {@code sub} of every warm-up token: the rate limits' client of its requests. */
  public static final String SUBJECT = "stockade-warm-up";

  private final Clock clock;
  private volatile Key key;

  private record Key(RSASSASigner signer, JwtDecoder decoder) {}

  public WarmUpTokens(Clock clock) {
    this.clock = clock;
    KeyPair pair;
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      pair = generator.generateKeyPair();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("This JVM cannot make RSA keys", e);
    }
    this.key =
        new Key(
            new RSASSASigner(pair.getPrivate()),
            new VerifiedTokens(
                NimbusJwtDecoder.withPublicKey((RSAPublicKey) pair.getPublic()).build(),
                64,
                Duration.ofMinutes(1),
                clock));
  }

  /**
   * A token with these roles, valid for {@code ttl}.
   *
   * @throws IllegalStateException once closed
   */
  public String mint(List<String> roles, Duration ttl) {
    Key current = key;
    if (current == null) {
      throw new IllegalStateException("The warm-up is over: its key is gone");
    }
    Instant now = clock.instant();
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .subject(SUBJECT)
            .issuer(SUBJECT)
            .jwtID(UUID.randomUUID().toString())
            .claim(Roles.CLAIM, roles)
            .issueTime(Date.from(now))
            .expirationTime(Date.from(now.plus(ttl)))
            .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    try {
      jwt.sign(current.signer());
    } catch (JOSEException e) {
      throw new IllegalStateException("A warm-up token could not be signed", e);
    }
    return jwt.serialize();
  }

  /** Whether its tokens are still accepted. */
  public boolean isOpen() {
    return key != null;
  }

  /** From now on its tokens are refused, and no more can be made. */
  @Override
  public void close() {
    key = null;
  }

  /**
   * {@code decoder}, which also accepts this object's tokens while it is open. Until then every
   * token is tried with the warm-up key first (only the warm-up's requests come before the service
   * is ready), then with {@code decoder}.
   */
  JwtDecoder acceptingUntilClosed(JwtDecoder decoder) {
    return token -> {
      Key current = key;
      if (current != null) {
        try {
          return current.decoder().decode(token);
        } catch (JwtException notOurs) {
          // A token of the configured key, or a refused one: the service's decoder says which.
        }
      }
      return decoder.decode(token);
    };
  }
}
