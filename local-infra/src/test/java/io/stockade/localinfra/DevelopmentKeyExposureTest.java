package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The local development key never guards a service that other hosts can reach, in the two ways this
 * repository starts the services: {@code docker/compose.yaml} and {@code ./stockade up}.
 */
class DevelopmentKeyExposureTest {

  private static final Path ROOT = Path.of("..");
  private static final String KEY_SETTING =
      "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PUBLIC_KEY_LOCATION";

  /**
   * {@code ${NAME:?message}} or {@code ${NAME?message}}: docker compose stops when NAME is unset.
   */
  private static final Pattern REQUIRED =
      Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_]*:?\\?[^}]*}");

  private static final Pattern INTERPOLATION = Pattern.compile("\\$\\{[^}]*}");

  @Test
  void composePublishesAServiceBeyondLoopbackOnlyWithAKeyThatMustBeGiven() throws IOException {
    String text = Files.readString(ROOT.resolve("docker/compose.yaml"));
    Map<String, Object> services = map(new Yaml().<Map<String, Object>>load(text).get("services"));

    assertThat(text)
        .as("the compose file never names the development key")
        .doesNotContain("local-dev-jwt");
    List<String> published = new ArrayList<>();
    for (Map.Entry<String, Object> entry : services.entrySet()) {
      String name = entry.getKey();
      Map<String, Object> service = map(entry.getValue());
      if (!service.containsKey("ports") || onLoopbackOnly(list(service.get("ports")))) {
        continue;
      }
      published.add(name);
      Object location = map(service.get("environment")).get(KEY_SETTING);
      assertThat(location).as("%s's token key", name).isInstanceOf(String.class);
      String source = String.valueOf(location);
      if (INTERPOLATION.matcher(source).find()) {
        assertThat(requiredOnly(source))
            .as("%s's token key %s has no default", name, source)
            .isTrue();
      } else {
        // A file the compose file mounts: the mount's source must be given.
        assertThat(source).as("%s's token key", name).startsWith("file:");
        String target = source.substring("file:".length());
        Object mount =
            list(service.get("volumes")).stream()
                .filter(
                    volume -> volume instanceof Map<?, ?> spec && target.equals(spec.get("target")))
                .findFirst()
                .orElse(null);
        assertThat(mount).as("%s mounts %s", name, target).isNotNull();
        String host = String.valueOf(map(mount).get("source"));
        assertThat(requiredOnly(host)).as("%s's key file %s has no default", name, host).isTrue();
      }
    }
    assertThat(published)
        .as("services published beyond loopback")
        .contains("command-side", "query-side");
  }

  @Test
  void quickStartStartsEachServiceOnLoopbackOnly(@TempDir Path dir) throws Exception {
    // A java that records how the script starts it.
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$ARGS\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path args = dir.resolve("args");
    ProcessBuilder script =
        new ProcessBuilder(
                "bash",
                "-c",
                "source ./stockade && RUN=\"$T\" && LOGS=\"$T\""
                    + " && start_service command-side command-side.jar 18080 && wait")
            .directory(ROOT.toFile())
            .redirectErrorStream(true);
    script.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    script.environment().put("ARGS", args.toString());
    script.environment().put("T", dir.toString());
    script.environment().remove("SERVER_ADDRESS");
    Process process = script.start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as(output).isZero();
    assertThat(Files.readAllLines(args))
        .contains("-jar", "command-side.jar")
        .contains("--server.address=127.0.0.1");
  }

  /** Every port is published on 127.0.0.1 (short syntax {@code 127.0.0.1:8080:8080}, or long). */
  private static boolean onLoopbackOnly(List<Object> ports) {
    return ports.stream()
        .allMatch(
            port ->
                port instanceof Map<?, ?> spec
                    ? "127.0.0.1".equals(spec.get("host_ip"))
                    : String.valueOf(port).startsWith("127.0.0.1:"));
  }

  /** The value interpolates variables, each of them one that docker compose requires. */
  private static boolean requiredOnly(String value) {
    Matcher any = INTERPOLATION.matcher(value);
    int count = 0;
    while (any.find()) {
      count++;
      if (!REQUIRED.matcher(any.group()).matches()) {
        return false;
      }
    }
    return count > 0;
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
