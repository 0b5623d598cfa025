package io.stockade.platform.security;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Says what to set when the service refuses the local development key on a reachable listener. */
class DevelopmentKeyExposedFailureAnalyzer
    extends AbstractFailureAnalyzer<DevelopmentKeyExposedException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, DevelopmentKeyExposedException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "For a deployment set SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PUBLIC_KEY_LOCATION to your"
            + " issuer's public key (for example file:/etc/stockade/jwt.pub), or _JWK_SET_URI or"
            + " _ISSUER_URI. To try Stockade on this machine, bind it to loopback"
            + " (SERVER_ADDRESS=127.0.0.1); see docs/api.md, Security.",
        cause);
  }
}
