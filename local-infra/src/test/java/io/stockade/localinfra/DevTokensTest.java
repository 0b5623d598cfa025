package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The documented local tokens ({@code dev/tokens/}) are signed by the local development key whose
 * public half the services accept on local servers, carry their role and last until 2100; {@link
 * DevTokens} mints tokens of the same shape.
 */
class DevTokensTest {

  @ParameterizedTest
  @ValueSource(strings = {"client", "admin", "reader"})
  void theDocumentedTokenOfARoleIsSignedByTheLocalDevelopmentKey(String role) throws Exception {
    String token = Files.readString(Path.of("dev", "tokens", role)).strip();

    assertThat(verifies(token)).isTrue();
    assertThat(claims(token))
        .contains("\"roles\":[\"" + role + "\"]")
        .contains("\"iss\":\"stockade-local-dev\"")
        .contains("\"exp\":" + DevTokens.FOREVER.getEpochSecond());
  }

  @ParameterizedTest
  @ValueSource(strings = {"client,reader", "admin"})
  void mintsATokenThatTheLocalDevelopmentKeyVerifies(String roles) throws Exception {
    Instant now = Instant.now();
    String token =
        DevTokens.mint(
            DevTokens.readPrivateKey(Path.of("dev", "local-dev-jwt.key")),
            "u-42",
            roles.split(","),
            now,
            now.plusSeconds(3600));

    assertThat(verifies(token)).isTrue();
    assertThat(claims(token))
        .contains("\"sub\":\"u-42\"")
        .contains("\"roles\":[\"" + roles.replace(",", "\",\"") + "\"]")
        .contains("\"exp\":" + (now.getEpochSecond() + 3600));
    String tampered =
        token.replace(token.split("\\.")[1], encode(claims(token).replace("u-42", "u-43")));
    assertThat(verifies(tampered)).isFalse();
  }

  private static boolean verifies(String token) throws Exception {
    String[] parts = token.split("\\.");
    Signature signature = Signature.getInstance("SHA256withRSA");
    signature.initVerify(localDevelopmentKey());
    signature.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
    return signature.verify(Base64.getUrlDecoder().decode(parts[2]));
  }

  private static String claims(String token) {
    return new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8);
  }

  private static String encode(String json) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  private static PublicKey localDevelopmentKey() throws Exception {
    String resource =
        LocalInfraEnvironmentPostProcessor.LOCAL_DEV_KEY.substring("classpath:".length());
    try (InputStream in = DevTokensTest.class.getClassLoader().getResourceAsStream(resource)) {
      String pem =
          new String(in.readAllBytes(), StandardCharsets.US_ASCII)
              .replace("-----BEGIN PUBLIC KEY-----", "")
              .replace("-----END PUBLIC KEY-----", "");
      return KeyFactory.getInstance("RSA")
          .generatePublic(new X509EncodedKeySpec(Base64.getMimeDecoder().decode(pem)));
    }
  }
}
