package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * What {@code docker/compose.yaml} gives the services beyond their images: a database account that
 * may list InnoDB's transactions (so that the event feed does not wait out its gap timeout at every
 * hole), and tokens minted by {@code docker/token} with openssl alone, short-lived and with the
 * roles asked for.
 */
class ComposeStackTest {

  private static final Path ROOT = Path.of("..");
  private static final String INIT_FOLDER = "/docker-entrypoint-initdb.d";
  private static final Pattern GRANT =
      Pattern.compile(
          "GRANT\\s+(?:[A-Z ,]+,\\s*)?PROCESS(?:\\s*,[A-Z ,]+)?\\s+ON\\s+\\*\\.\\*\\s+TO\\s+"
              + "'\\$\\{?MYSQL_USER}?'",
          Pattern.CASE_INSENSITIVE);

  @Test
  void theServicesDatabaseAccountIsGrantedProcessAtTheDatabasesFirstStart() throws IOException {
    Map<String, Object> services = map(compose().get("services"));
    Map<String, Object> mysql = map(services.get("mysql"));

    Object user = map(mysql.get("environment")).get("MYSQL_USER");
    for (String service : List.of("command-side", "query-side")) {
      assertThat(map(map(services.get(service)).get("environment")))
          .as("%s's database account is MYSQL_USER", service)
          .containsEntry("SPRING_DATASOURCE_USERNAME", user);
    }
    Map<String, Object> init =
        list(mysql.get("volumes")).stream()
            .filter(
                volume ->
                    volume instanceof Map<?, ?> spec && INIT_FOLDER.equals(spec.get("target")))
            .map(ComposeStackTest::map)
            .findFirst()
            .orElseThrow(() -> new AssertionError("mysql mounts nothing on " + INIT_FOLDER));
    Path folder = ROOT.resolve("docker").resolve(String.valueOf(init.get("source")));
    List<String> grants = new ArrayList<>();
    try (var files = Files.list(folder)) {
      for (Path file : files.sorted().toList()) {
        Matcher grant = GRANT.matcher(Files.readString(file));
        if (grant.find()) {
          grants.add(file.getFileName() + ": " + grant.group());
        }
      }
    }
    assertThat(grants).as("grants of PROCESS to MYSQL_USER in %s", folder).hasSize(1);
  }

  @Test
  void theComposeFileMintsItsTokensWithTheTokenScriptNotAHostJdk() throws IOException {
    String text = Files.readString(ROOT.resolve("docker/compose.yaml"));

    assertThat(text).contains("docker/token ").doesNotContain("./stockade token");
  }

  @Test
  void theTokenScriptMintsAShortLivedTokenWithTheRolesAskedForSignedByTheKey(@TempDir Path dir)
      throws Exception {
    assumeTrue(opensslIsInstalled(), "openssl is not on the PATH");
    KeyPair keys = KeyPairGenerator.getInstance("RSA").genKeyPair();
    Path key = dir.resolve("jwt.key");
    Files.writeString(
        key,
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(keys.getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n");
    long before = Instant.now().getEpochSecond();

    String scraper = token(key, "metrics", "prometheus", "15");
    String shop = token(key, "client,reader", "shop-1");

    for (String token : List.of(scraper, shop)) {
      String[] parts = token.split("\\.");
      Signature signature = Signature.getInstance("SHA256withRSA");
      signature.initVerify(keys.getPublic());
      signature.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
      assertThat(signature.verify(Base64.getUrlDecoder().decode(parts[2]))).isTrue();
      assertThat(decode(parts[0])).isEqualTo("{\"alg\":\"RS256\",\"typ\":\"JWT\"}");
    }
    assertThat(decode(scraper.split("\\.")[1]))
        .contains("\"sub\":\"prometheus\"", "\"roles\":[\"metrics\"]");
    assertThat(lifetime(scraper)).isEqualTo(15 * 60);
    assertThat(decode(shop.split("\\.")[1]))
        .contains("\"sub\":\"shop-1\"", "\"roles\":[\"client\",\"reader\"]");
    assertThat(lifetime(shop)).as("the default lifetime").isEqualTo(60 * 60);
    assertThat(number(shop, "iat")).isBetween(before, Instant.now().getEpochSecond());
  }

  @Test
  void theTokenScriptRefusesALongLifeAndNamesThatNeedEscaping(@TempDir Path dir) throws Exception {
    Path key = dir.resolve("jwt.key");
    Files.writeString(key, "unused: refused before signing");

    assertThat(run("docker/token", key.toString(), "admin", "ops-1", "525600").exitValue())
        .isEqualTo(2);
    assertThat(run("docker/token", key.toString(), "admin\",\"client").exitValue()).isEqualTo(2);
  }

  private static boolean opensslIsInstalled() {
    try {
      return run("openssl", "version").exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  private static String token(Path key, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of("docker/token", key.toString()));
    command.addAll(List.of(arguments));
    Process process = run(command.toArray(String[]::new));
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(out).isZero();
    return out.strip();
  }

  private static Process run(String... command) throws Exception {
    Process process =
        new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
    process.getOutputStream().close();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return process;
  }

  private static long lifetime(String token) {
    return number(token, "exp") - number(token, "iat");
  }

  private static long number(String token, String claim) {
    Matcher value =
        Pattern.compile("\"" + claim + "\":(\\d+)").matcher(decode(token.split("\\.")[1]));
    assertThat(value.find()).as("%s in %s", claim, token).isTrue();
    return Long.parseLong(value.group(1));
  }

  private static String decode(String part) {
    return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
  }

  private static Map<String, Object> compose() throws IOException {
    return new Yaml().load(Files.readString(ROOT.resolve("docker/compose.yaml")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    assertThat(value).isInstanceOf(Map.class);
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object value) {
    assertThat(value).isInstanceOf(List.class);
    return (List<Object>) value;
  }
}
