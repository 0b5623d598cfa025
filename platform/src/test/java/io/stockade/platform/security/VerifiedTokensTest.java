package io.stockade.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * The cache of verified tokens in front of a real RS256 verifier, both on one test clock: a token
 * is verified once, never accepted past its {@code exp} or {@code max-age}, a refused token is
 * never remembered, and the cache holds at most its size.
 */
class VerifiedTokensTest {

  private static final KeyPair KEY = keyPair();
  private static final KeyPair OTHER_KEY = keyPair();
  private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

  private final MutableClock clock = new MutableClock(START);
  private final AtomicInteger verifications = new AtomicInteger();
  private final JwtDecoder verifier = counting(verifierOn(clock));

  @Test
  void verifiesARepeatedTokenOnce() {
    VerifiedTokens tokens = new VerifiedTokens(verifier, 16, Duration.ofMinutes(5), clock);
    String token = sign(KEY, START.plusSeconds(3600), "u-1");

    assertThat(tokens.decode(token).getSubject()).isEqualTo("u-1");
    assertThat(tokens.decode(token).getSubject()).isEqualTo("u-1");
    assertThat(tokens.decode(token).getClaimAsStringList("roles")).containsExactly("client");

    assertThat(verifications).hasValue(1);
  }

  @Test
  void neverAcceptsARememberedTokenOnceItHasExpired() {
    VerifiedTokens tokens = new VerifiedTokens(verifier, 16, Duration.ofMinutes(5), clock);
    String token = sign(KEY, START.plusSeconds(60), "u-1");
    tokens.decode(token);

    // At exp the entry is gone: the verifier decides again (it still accepts at that instant).
    clock.set(START.plusSeconds(60));
    tokens.decode(token);
    assertThat(verifications).hasValue(2);

    clock.set(START.plusSeconds(61));
    assertThatThrownBy(() -> tokens.decode(token)).isInstanceOf(JwtException.class);
    assertThat(verifications).hasValue(3);
    assertThat(tokens.size()).isZero();
  }

  @Test
  void verifiesARememberedTokenAgainAfterMaxAge() {
    VerifiedTokens tokens = new VerifiedTokens(verifier, 16, Duration.ofMinutes(1), clock);
    String token = sign(KEY, START.plusSeconds(3600), "u-1");
    tokens.decode(token);

    clock.set(START.plusSeconds(59));
    tokens.decode(token);
    assertThat(verifications).hasValue(1);

    clock.set(START.plusSeconds(60));
    tokens.decode(token);
    assertThat(verifications).hasValue(2);
  }

  @Test
  void neverRemembersARefusedToken() {
    VerifiedTokens tokens = new VerifiedTokens(verifier, 16, Duration.ofMinutes(5), clock);
    String foreign = sign(OTHER_KEY, START.plusSeconds(3600), "u-1");

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> tokens.decode(foreign)).isInstanceOf(JwtException.class);
    }

    assertThat(verifications).hasValue(3);
    assertThat(tokens.size()).isZero();
  }

  @Test
  void refusesATamperedCopyOfARememberedToken() {
    VerifiedTokens tokens = new VerifiedTokens(verifier, 16, Duration.ofMinutes(5), clock);
    String token = sign(KEY, START.plusSeconds(3600), "u-1");
    tokens.decode(token);
    String[] parts = token.split("\\.");
    String otherClaims = sign(KEY, START.plusSeconds(3600), "admin-by-forgery").split("\\.")[1];
    String forged = parts[0] + "." + otherClaims + "." + parts[2];
    // A character in the middle of the signature (the last one carries padding bits only).
    int at = token.length() - 20;
    String badSignature =
        token.substring(0, at) + (token.charAt(at) == 'A' ? 'B' : 'A') + token.substring(at + 1);

    assertThatThrownBy(() -> tokens.decode(forged)).isInstanceOf(JwtException.class);
    assertThatThrownBy(() -> tokens.decode(badSignature)).isInstanceOf(JwtException.class);
    assertThat(tokens.size()).isEqualTo(1);
  }

  @Test
  void neverRemembersATokenWithoutExpiry() {
    JwtDecoder acceptsAnything = counting(NimbusJwtDecoder.withPublicKey(publicKey(KEY)).build());
    VerifiedTokens tokens = new VerifiedTokens(acceptsAnything, 16, Duration.ofMinutes(5), clock);
    String token = sign(KEY, null, "u-1");

    tokens.decode(token);
    tokens.decode(token);

    assertThat(verifications).hasValue(2);
    assertThat(tokens.size()).isZero();
  }

  @Test
  void holdsAtMostItsSizeAndForgetsExpiredTokensFirst() {
    VerifiedTokens tokens = new VerifiedTokens(verifier, 3, Duration.ofMinutes(5), clock);
    String shortLived = sign(KEY, START.plusSeconds(10), "short");
    String a = sign(KEY, START.plusSeconds(3600), "a");
    String b = sign(KEY, START.plusSeconds(3600), "b");
    tokens.decode(shortLived);
    tokens.decode(a);
    tokens.decode(b);
    clock.set(START.plusSeconds(10));

    tokens.decode(sign(KEY, START.plusSeconds(3600), "c"));
    assertThat(tokens.size()).isEqualTo(3);
    int before = verifications.get();
    tokens.decode(a);
    tokens.decode(b);
    assertThat(verifications).hasValue(before);

    for (int i = 0; i < 20; i++) {
      tokens.decode(sign(KEY, START.plusSeconds(3600), "u-" + i));
      assertThat(tokens.size()).isLessThanOrEqualTo(3);
    }
  }

  private JwtDecoder counting(JwtDecoder decoder) {
    return token -> {
      verifications.incrementAndGet();
      return decoder.decode(token);
    };
  }

  /** Spring's RS256 decoder with its expiry check on the test clock, without clock skew. */
  private static JwtDecoder verifierOn(Clock clock) {
    NimbusJwtDecoder decoder = NimbusJwtDecoder.withPublicKey(publicKey(KEY)).build();
    JwtTimestampValidator timestamps = new JwtTimestampValidator(Duration.ZERO);
    timestamps.setClock(clock);
    decoder.setJwtValidator(timestamps);
    return decoder;
  }

  private static String sign(KeyPair key, Instant expiresAt, String subject) {
    JWTClaimsSet.Builder claims =
        new JWTClaimsSet.Builder()
            .subject(subject)
            .claim("roles", List.of("client"))
            .issueTime(Date.from(START));
    if (expiresAt != null) {
      claims.expirationTime(Date.from(expiresAt));
    }
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims.build());
    try {
      jwt.sign(new RSASSASigner(key.getPrivate()));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }

  private static RSAPublicKey publicKey(KeyPair key) {
    return (RSAPublicKey) key.getPublic();
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static final class MutableClock extends Clock {

    private volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
