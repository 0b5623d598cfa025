package io.stockade.platform.security;

import java.util.List;

/**
 * The local development key would verify the tokens of a service that other hosts can reach: the
 * service does not start.
 */
final class DevelopmentKeyExposedException extends IllegalStateException {

  DevelopmentKeyExposedException(String location, List<String> exposed) {
    super(
        "The key that verifies bearer tokens ("
            + LocalDevelopmentKey.KEY_LOCATION
            + "="
            + location
            + ") is the local development key, whose private half is in Stockade's repository:"
            + " anyone can sign tokens it accepts. It is accepted only when every listener is on"
            + " loopback, and "
            + String.join("; ", exposed)
            + ". Set server.address (and management.server.address, with a management port of"
            + " its own) to 127.0.0.1, or give the service a key of its own.");
  }
}
