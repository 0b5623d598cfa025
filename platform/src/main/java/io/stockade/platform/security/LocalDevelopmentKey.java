package io.stockade.platform.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.springframework.core.env.Environment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.StringUtils;

/**
 * The rule for the local development key, whose private half and long-lived tokens are in the
 * repository: anyone can sign tokens with it, so a service verifies tokens with it only when every
 * one of its listeners is on loopback. It is recognised by its content, wherever it is read from.
 */
final class LocalDevelopmentKey {

  /** SHA-256 of the development public key's SubjectPublicKeyInfo (the PEM's DER). */
  static final String FINGERPRINT =
      "9e976f795fa1b898110c7f879d41af5d16368a3f3f2ceaf376c9a55f1d96cc8a";

  static final String KEY_LOCATION =
      "spring.security.oauth2.resourceserver.jwt.public-key-location";

  private LocalDevelopmentKey() {}

  /**
   * Refuses (throws) when the configured public key is the development key and a listener may be
   * reached from another host.
   */
  static void refuseUnlessOnLoopback(Environment environment, ResourceLoader resources) {
    String location = environment.getProperty(KEY_LOCATION);
    if (!StringUtils.hasText(location) || !isDevelopmentKey(resources.getResource(location))) {
      return;
    }
    List<String> exposed = exposedListeners(environment);
    if (!exposed.isEmpty()) {
      throw new DevelopmentKeyExposedException(location, exposed);
    }
  }

  /** Whether the resource holds the development public key (in PEM); false when unreadable. */
  static boolean isDevelopmentKey(Resource key) {
    try (InputStream in = key.getInputStream()) {
      String pem = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      byte[] der = Base64.getDecoder().decode(base64);
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(der);
      return HexFormat.of().formatHex(digest).equals(FINGERPRINT);
    } catch (IOException | IllegalArgumentException e) {
      // Spring Boot reads the key itself and says what is wrong with it.
      return false;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The settings that let a listener accept connections from another host: {@code server.address}
   * unset (every interface) or not a loopback address; {@code management.server.address} set to one
   * that is not, or unset while the management server has a port of its own.
   */
  static List<String> exposedListeners(Environment environment) {
    List<String> exposed = new ArrayList<>();
    String server = environment.getProperty("server.address");
    if (!isLoopback(server)) {
      exposed.add("server.address is " + describe(server));
    }
    String management = environment.getProperty("management.server.address");
    if (StringUtils.hasText(management)
        ? !isLoopback(management)
        : hasOwnManagementPort(environment)) {
      exposed.add(
          "management.server.address is "
              + describe(management)
              + " (management.server.port is "
              + environment.getProperty("management.server.port", "not set")
              + ")");
    }
    return exposed;
  }

  /** As Spring Boot decides that the actuator runs a server of its own. */
  private static boolean hasOwnManagementPort(Environment environment) {
    Integer management = environment.getProperty("management.server.port", Integer.class);
    Integer server = environment.getProperty("server.port", Integer.class);
    if (management == null || management < 0) {
      return false;
    }
    boolean same =
        server == null ? management == 8080 : management != 0 && management.equals(server);
    return !same;
  }

  private static boolean isLoopback(String address) {
    if (!StringUtils.hasText(address)) {
      return false;
    }
    try {
      return InetAddress.getByName(address.trim()).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static String describe(String address) {
    return StringUtils.hasText(address) ? address : "not set (every interface)";
  }
}
