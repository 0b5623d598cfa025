package io.stockade.localinfra;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.stream.Collectors;

/**
 * Mints a bearer token (an RS256 JWT) for local use: {@code ./stockade token ROLES [SUBJECT]
 * [DAYS]}. Arguments: the private key (PKCS#8 PEM; {@code ./stockade} passes the local development
 * key of {@code local-infra/dev/}), the roles separated by commas ({@code client}, {@code admin},
 * {@code reader}), the subject, and how many days the token lasts, or {@code forever} (until 2100).
 * Prints the token. The JDK alone signs it, so that the quick start needs nothing else.
 */
public final class DevTokens {

  /** The {@code iss} of the tokens minted here. */
  static final String ISSUER = "stockade-local-dev";

  /** 2100-01-01T00:00:00Z: the expiry of the documented long-lived local tokens. */
  static final Instant FOREVER = Instant.parse("2100-01-01T00:00:00Z");

  private DevTokens() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2 || args.length > 4) {
      System.err.println("usage: DevTokens PRIVATE_KEY_PEM ROLES [SUBJECT] [DAYS|forever]");
      System.exit(2);
    }
    PrivateKey key = readPrivateKey(Path.of(args[0]));
    String[] roles = args[1].split(",");
    String subject = args.length > 2 ? args[2] : "local-" + String.join("-", roles);
    Instant now = Instant.now();
    Instant expiry =
        args.length < 4 || args[3].equals("forever")
            ? FOREVER
            : now.plus(Duration.ofDays(Long.parseLong(args[3])));
    System.out.println(mint(key, subject, roles, now, expiry));
  }

  /** An RS256 JWT with {@code iss}, {@code sub}, {@code roles}, {@code iat} and {@code exp}. */
  static String mint(
      PrivateKey key, String subject, String[] roles, Instant issuedAt, Instant expiry)
      throws GeneralSecurityException {
    for (String value : concat(subject, roles)) {
      if (!value.matches("[A-Za-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException("not a plain name: " + value);
      }
    }
    String claims =
        "{\"iss\":\""
            + ISSUER
            + "\",\"sub\":\""
            + subject
            + "\",\"roles\":"
            + Arrays.stream(roles).collect(Collectors.joining("\",\"", "[\"", "\"]"))
            + ",\"iat\":"
            + issuedAt.getEpochSecond()
            + ",\"exp\":"
            + expiry.getEpochSecond()
            + "}";
    String signed = encode("{\"alg\":\"RS256\",\"typ\":\"JWT\"}") + "." + encode(claims);
    Signature signature = Signature.getInstance("SHA256withRSA");
    signature.initSign(key);
    signature.update(signed.getBytes(StandardCharsets.US_ASCII));
    return signed + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(signature.sign());
  }

  static PrivateKey readPrivateKey(Path pem) throws Exception {
    String base64 =
        Files.readString(pem, StandardCharsets.US_ASCII)
            .replace("-----BEGIN PRIVATE KEY-----", "")
            .replace("-----END PRIVATE KEY-----", "");
    return KeyFactory.getInstance("RSA")
        .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(base64)));
  }

  private static String encode(String json) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String[] concat(String first, String[] rest) {
    String[] all = Arrays.copyOf(rest, rest.length + 1);
    all[rest.length] = first;
    return all;
  }
}
