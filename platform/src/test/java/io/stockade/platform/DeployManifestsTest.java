package io.stockade.platform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes manifests of {@code deploy/base} ask each service only for what it has: probes on
 * health groups its {@code application.yml} (and Spring Boot's defaults) give it, on its own port,
 * and settings that exist: a {@code STOCKADE_*} name is a row of docs/configuration.md's tables, a
 * Spring name is there or in Spring Boot's configuration metadata. Every such name in the files
 * counts, those in comments too.
 */
class DeployManifestsTest {

  private static final Path ROOT = Path.of("..");
  private static final Path BASE = ROOT.resolve("deploy/base");
  private static final Pattern SETTING_WORD =
      Pattern.compile("\\b(?:STOCKADE|SPRING|SERVER|MANAGEMENT|LOGGING)_[A-Z0-9_]+\\b");
  private static final Pattern STOCKADE = Pattern.compile("STOCKADE_[A-Z0-9_]+");

  @Test
  void theKustomizationListsEveryManifestOfTheFolder() throws IOException {
    Map<String, Object> kustomization =
        map(new Yaml().load(Files.readString(BASE.resolve("kustomization.yaml"))));
    List<Object> resources = list(kustomization.get("resources"));
    Set<String> files = new TreeSet<>();
    try (Stream<Path> all = Files.list(BASE)) {
      all.map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".yaml") && !name.equals("kustomization.yaml"))
          .forEach(files::add);
    }

    assertThat(resources).map(String::valueOf).containsExactlyInAnyOrderElementsOf(files);
    assertThat(deployments()).extracting(Manifest::name).contains("command-side", "query-side");
  }

  @Test
  void everyProbeAsksForAHealthGroupOfItsServiceOnTheServicesPort() {
    List<String> wrong = new ArrayList<>();
    int probes = 0;
    for (Manifest deployment : deployments()) {
      for (Map<String, Object> container : containers(deployment)) {
        ServiceConfig service = ServiceConfig.of(String.valueOf(container.get("name")));
        for (String kind : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
          Map<String, Object> probe = map(container.get(kind));
          if (probe.isEmpty()) {
            wrong.add(deployment.name() + " has no " + kind);
            continue;
          }
          probes++;
          Map<String, Object> get = map(probe.get("httpGet"));
          String path = String.valueOf(get.get("path"));
          if (!service.healthPaths().contains(path)) {
            wrong.add(
                deployment.name()
                    + " "
                    + kind
                    + ": "
                    + path
                    + " is none of "
                    + service.healthPaths());
          }
          int port = port(container, get.get("port"));
          if (port != service.managementPort()) {
            wrong.add(
                deployment.name()
                    + " "
                    + kind
                    + ": port "
                    + port
                    + ", the service's health is on "
                    + service.managementPort());
          }
        }
      }
    }
    assertThat(wrong).as("probes that the services do not answer").isEmpty();
    assertThat(probes).isGreaterThanOrEqualTo(6);
  }

  @Test
  void everyPortIsOneTheServiceListensOn() {
    List<String> wrong = new ArrayList<>();
    Map<String, Map<String, Object>> containersByLabel = new TreeMap<>();
    for (Manifest deployment : deployments()) {
      Map<String, Object> labels =
          map(
              map(map(map(deployment.body().get("spec")).get("template")).get("metadata"))
                  .get("labels"));
      for (Map<String, Object> container : containers(deployment)) {
        ServiceConfig service = ServiceConfig.of(String.valueOf(container.get("name")));
        for (Object declared : list(container.get("ports"))) {
          int port = ((Number) map(declared).get("containerPort")).intValue();
          if (port != service.port() && port != service.managementPort()) {
            wrong.add(deployment.name() + " declares port " + port + ", not " + service.port());
          }
        }
        containersByLabel.put(String.valueOf(labels.get("app.kubernetes.io/name")), container);
      }
    }
    for (Manifest manifest : manifests()) {
      if (!manifest.kind().equals("Service")) {
        continue;
      }
      Map<String, Object> spec = map(manifest.body().get("spec"));
      Map<String, Object> container =
          containersByLabel.get(
              String.valueOf(map(spec.get("selector")).get("app.kubernetes.io/name")));
      if (container == null) {
        wrong.add("Service " + manifest.name() + " selects no Deployment's pods");
        continue;
      }
      ServiceConfig service = ServiceConfig.of(String.valueOf(container.get("name")));
      for (Object entry : list(spec.get("ports"))) {
        int target = port(container, map(entry).get("targetPort"));
        if (target != service.port()) {
          wrong.add(
              "Service " + manifest.name() + " sends to " + target + ", not " + service.port());
        }
      }
    }
    assertThat(wrong).as("ports the services do not listen on").isEmpty();
  }

  @Test
  void everySettingNamedIsARealOne() {
    Map<String, String> named = settingsNamed();
    assertThat(named)
        .as("settings named by deploy/base")
        .containsKeys(
            "SPRING_DATASOURCE_URL",
            "SPRING_DATASOURCE_PASSWORD",
            "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PUBLIC_KEY_LOCATION",
            "STOCKADE_KAFKA_BOOTSTRAP_SERVERS");
    Set<String> table = SettingsTable.documented(ROOT);
    Set<String> spring = springSettings();

    List<String> unknown = new ArrayList<>();
    named.forEach(
        (name, where) -> {
          String normal = SettingsTable.normal(name);
          boolean real =
              STOCKADE.matcher(name).matches()
                  ? table.contains(normal)
                  : SETTING_WORD.matcher(name).matches()
                      && (table.contains(normal) || spring.contains(normal));
          if (!real) {
            unknown.add(name + " (" + where + ")");
          }
        });
    assertThat(unknown)
        .as("settings that neither docs/configuration.md nor Spring Boot knows")
        .isEmpty();
  }

  @Test
  void theTokenKeyEachServiceNamesIsAFileOfAMountedSecret() {
    Map<String, Set<String>> secrets = new TreeMap<>();
    for (Manifest manifest : manifests()) {
      if (manifest.kind().equals("Secret")) {
        Set<String> keys = new TreeSet<>(map(manifest.body().get("data")).keySet());
        keys.addAll(map(manifest.body().get("stringData")).keySet());
        secrets.put(manifest.name(), keys);
      }
    }
    for (Manifest deployment : deployments()) {
      Map<String, Object> pod =
          map(map(map(deployment.body().get("spec")).get("template")).get("spec"));
      for (Map<String, Object> container : containers(deployment)) {
        String location =
            list(container.get("env")).stream()
                .map(DeployManifestsTest::map)
                .filter(
                    variable ->
                        "SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PUBLIC_KEY_LOCATION"
                            .equals(variable.get("name")))
                .map(variable -> String.valueOf(variable.get("value")))
                .findFirst()
                .orElseThrow(() -> new AssertionError(deployment.name() + " names no token key"));
        assertThat(location).as("%s's token key", deployment.name()).startsWith("file:/");
        Path file = Path.of(location.substring("file:".length()));
        Map<String, Object> mount =
            list(container.get("volumeMounts")).stream()
                .map(DeployManifestsTest::map)
                .filter(m -> file.getParent().equals(Path.of(String.valueOf(m.get("mountPath")))))
                .findFirst()
                .orElseThrow(
                    () -> new AssertionError(deployment.name() + " mounts nothing on " + file));
        Map<String, Object> volume =
            list(pod.get("volumes")).stream()
                .map(DeployManifestsTest::map)
                .filter(v -> mount.get("name").equals(v.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + mount.get("name")));
        String secret = String.valueOf(map(volume.get("secret")).get("secretName"));
        assertThat(secrets.getOrDefault(secret, Set.of()))
            .as("%s's key %s: the keys of the Secret %s", deployment.name(), file, secret)
            .contains(String.valueOf(file.getFileName()));
      }
    }
  }

  /** Name to where it is named: containers' env, the keys of what envFrom takes, and the text. */
  private static Map<String, String> settingsNamed() {
    Map<String, String> named = new TreeMap<>();
    Map<String, Set<String>> keysOf = new LinkedHashMap<>();
    for (Manifest manifest : manifests()) {
      if (manifest.kind().equals("ConfigMap") || manifest.kind().equals("Secret")) {
        Set<String> keys = new TreeSet<>(map(manifest.body().get("data")).keySet());
        keys.addAll(map(manifest.body().get("stringData")).keySet());
        keysOf.put(manifest.kind() + "/" + manifest.name(), keys);
      }
    }
    for (Manifest deployment : deployments()) {
      for (Map<String, Object> container : containers(deployment)) {
        for (Object variable : list(container.get("env"))) {
          named.put(String.valueOf(map(variable).get("name")), deployment.name() + "'s env");
        }
        for (Object source : list(container.get("envFrom"))) {
          Map<String, Object> from = map(source);
          String ref =
              from.containsKey("configMapRef")
                  ? "ConfigMap/" + map(from.get("configMapRef")).get("name")
                  : "Secret/" + map(from.get("secretRef")).get("name");
          assertThat(keysOf).as("%s's envFrom", deployment.name()).containsKey(ref);
          keysOf.get(ref).forEach(key -> named.put(key, ref));
        }
      }
    }
    for (Path file : files()) {
      Matcher word = SETTING_WORD.matcher(read(file));
      while (word.find()) {
        named.putIfAbsent(word.group(), String.valueOf(ROOT.relativize(file)));
      }
    }
    return named;
  }

  /** Every property of Spring Boot's configuration metadata on the classpath, normalised. */
  private static Set<String> springSettings() {
    Set<String> names = new TreeSet<>();
    ObjectMapper json = new ObjectMapper();
    try {
      for (URL url :
          Collections.list(
              DeployManifestsTest.class
                  .getClassLoader()
                  .getResources("META-INF/spring-configuration-metadata.json"))) {
        try (InputStream in = url.openStream()) {
          for (JsonNode property : json.readTree(in).path("properties")) {
            names.add(SettingsTable.normal(property.path("name").asText()));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(names).as("Spring Boot's settings").contains("LOGGINGSTRUCTUREDFORMATCONSOLE");
    return names;
  }

  /** A port as a container names or numbers it. */
  private static int port(Map<String, Object> container, Object port) {
    if (port instanceof Number number) {
      return number.intValue();
    }
    return list(container.get("ports")).stream()
        .map(DeployManifestsTest::map)
        .filter(declared -> String.valueOf(port).equals(declared.get("name")))
        .map(declared -> ((Number) declared.get("containerPort")).intValue())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container port named " + port));
  }

  /** What a service's YAML files set, and the health paths and ports that follow from them. */
  record ServiceConfig(int port, int managementPort, Set<String> healthPaths) {

    static ServiceConfig of(String module) {
      Path own = ROOT.resolve(module).resolve("src/main/resources/application.yml");
      assertThat(own).as("the service %s's application.yml", module).exists();
      Map<String, Object> settings = new TreeMap<>();
      // The imported platform file first: the service's own documents win over it.
      for (Path file :
          List.of(ROOT.resolve("platform/src/main/resources/stockade-platform.yml"), own)) {
        for (Object document : new Yaml().loadAll(read(file))) {
          flatten("", document, settings);
        }
      }
      int port = Integer.parseInt(String.valueOf(settings.getOrDefault("server.port", "8080")));
      int management =
          Integer.parseInt(
              String.valueOf(
                  settings.getOrDefault("management.server.port", String.valueOf(port))));
      String base =
          String.valueOf(settings.getOrDefault("management.endpoints.web.base-path", "/actuator"));
      assertThat(String.valueOf(settings.get("management.endpoints.web.exposure.include")))
          .as("%s exposes health", module)
          .containsPattern("\\bhealth\\b");
      Set<String> groups = new TreeSet<>();
      String prefix = "management.endpoint.health.group.";
      settings.keySet().stream()
          .filter(key -> key.startsWith(prefix))
          .forEach(key -> groups.add(key.substring(prefix.length()).split("\\.")[0]));
      // Spring Boot's liveness and readiness groups, on unless switched off.
      if (!"false"
          .equals(String.valueOf(settings.get("management.endpoint.health.probes.enabled")))) {
        groups.addAll(List.of("liveness", "readiness"));
      }
      Set<String> paths = new TreeSet<>();
      paths.add(base + "/health");
      groups.forEach(group -> paths.add(base + "/health/" + group));
      return new ServiceConfig(port, management, paths);
    }

    private static void flatten(String prefix, Object value, Map<String, Object> into) {
      if (value instanceof Map<?, ?> nested) {
        nested.forEach(
            (key, inner) -> flatten(prefix.isEmpty() ? "" + key : prefix + "." + key, inner, into));
      } else if (!prefix.isEmpty()) {
        into.put(prefix, value);
      }
    }
  }

  record Manifest(String kind, String name, Map<String, Object> body) {}

  private static List<Manifest> manifests() {
    List<Manifest> manifests = new ArrayList<>();
    for (Path file : files()) {
      if (!file.startsWith(BASE) || file.getFileName().toString().equals("kustomization.yaml")) {
        continue;
      }
      for (Object document : new Yaml().loadAll(read(file))) {
        Map<String, Object> body = map(document);
        if (!body.isEmpty()) {
          manifests.add(
              new Manifest(
                  String.valueOf(body.get("kind")),
                  String.valueOf(map(body.get("metadata")).get("name")),
                  body));
        }
      }
    }
    return manifests;
  }

  private static List<Manifest> deployments() {
    return manifests().stream().filter(manifest -> manifest.kind().equals("Deployment")).toList();
  }

  private static List<Map<String, Object>> containers(Manifest deployment) {
    Map<String, Object> pod =
        map(map(map(deployment.body().get("spec")).get("template")).get("spec"));
    return list(pod.get("containers")).stream().map(DeployManifestsTest::map).toList();
  }

  private static List<Path> files() {
    try (Stream<Path> all = Files.walk(ROOT.resolve("deploy"))) {
      return all.filter(
              file -> file.toString().endsWith(".yaml") || file.toString().endsWith(".yml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object value) {
    return value instanceof List<?> list ? (List<Object>) list : List.of();
  }
}
