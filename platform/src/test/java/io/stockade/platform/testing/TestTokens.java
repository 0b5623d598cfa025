package io.stockade.platform.testing;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bearer tokens for the services' tests, signed with the test key pair of this package. The test
 * suite configures the services with its public key and {@link #ISSUER} (the surefire settings of
 * the root POM; {@link #SERVICE_PROPERTIES} for a child JVM).
 */
public final class TestTokens {

  /** The {@code iss} the services expect in the tests ({@code stockade.security.issuer}). */
  public static final String ISSUER = "stockade-test";

  /** The {@code sub} of every token minted here: the calling client's name in the services. */
  public static final String SUBJECT = "test-user";

  /** Where the services find the test public key. */
  public static final String PUBLIC_KEY_LOCATION =
      "classpath:io/stockade/platform/testing/test-jwt.pub";

  /** The settings that make a service accept these tokens, as {@code -D} options of a child JVM. */
  public static final List<String> SERVICE_PROPERTIES =
      List.of(
          "-Dspring.security.oauth2.resourceserver.jwt.public-key-location=" + PUBLIC_KEY_LOCATION,
          "-Dstockade.security.issuer=" + ISSUER);

  private static final PrivateKey TEST_KEY = readPrivateKey("test-jwt.key");
  private static final Duration LIFETIME = Duration.ofHours(1);

  /** A token with every role, the default of {@link ApiClient}. */
  public static final String ALL_ROLES = withRoles("client", "admin", "reader");

  private TestTokens() {}

  /** A valid token with these roles (none: a token that authenticates but grants nothing). */
  public static String withRoles(String... roles) {
    return sign(TEST_KEY, claims(roles).build());
  }

  /** A valid token of another subject (another calling client) with these roles. */
  public static String forSubject(String subject, String... roles) {
    return sign(TEST_KEY, claims(roles).subject(subject).build());
  }

  /** A token with every role that expired an hour ago. */
  public static String expired() {
    Instant now = Instant.now();
    return sign(
        TEST_KEY,
        claims("client", "admin", "reader")
            .issueTime(Date.from(now.minus(Duration.ofHours(2))))
            .expirationTime(Date.from(now.minus(Duration.ofHours(1))))
            .build());
  }

  /** A token with every role and no expiry. */
  public static String withoutExpiry() {
    return sign(TEST_KEY, claims("client", "admin", "reader").expirationTime(null).build());
  }

  /** A token with every role from another issuer. */
  public static String fromAnotherIssuer() {
    return sign(TEST_KEY, claims("client", "admin", "reader").issuer("someone-else").build());
  }

  /**
   * Tokens a service must refuse with 401, each with every role, by what is wrong with them:
   * expired, signed by another key, from another issuer, without an expiry, garbage, cut short,
   * unsigned.
   */
  public static Map<String, String> invalid() {
    Map<String, String> tokens = new LinkedHashMap<>();
    tokens.put("expired", expired());
    tokens.put("signed by another key", signedByAnotherKey());
    tokens.put("from another issuer", fromAnotherIssuer());
    tokens.put("without an expiry", withoutExpiry());
    tokens.put("garbage", "not-a-jwt");
    tokens.put("a JWT cut short", ALL_ROLES.substring(0, 100));
    tokens.put("unsigned", unsigned(ALL_ROLES));
    return tokens;
  }

  /** The token's claims under an {@code alg: none} header and no signature. */
  private static String unsigned(String token) {
    String header =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8));
    return header + "." + token.split("\\.")[1] + ".";
  }

  /** A token with every role, signed by a key the services do not know. */
  public static String signedByAnotherKey() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return sign(
          generator.generateKeyPair().getPrivate(), claims("client", "admin", "reader").build());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JWTClaimsSet.Builder claims(String... roles) {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .issuer(ISSUER)
        .subject(SUBJECT)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(LIFETIME)))
        .claim("roles", List.of(roles));
  }

  private static String sign(PrivateKey key, JWTClaimsSet claims) {
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    try {
      jwt.sign(new RSASSASigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }

  private static PrivateKey readPrivateKey(String resource) {
    try (InputStream in = TestTokens.class.getResourceAsStream(resource)) {
      String pem =
          new String(in.readAllBytes(), StandardCharsets.US_ASCII)
              .replace("-----BEGIN PRIVATE KEY-----", "")
              .replace("-----END PRIVATE KEY-----", "");
      return KeyFactory.getInstance("RSA")
          .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(pem)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
