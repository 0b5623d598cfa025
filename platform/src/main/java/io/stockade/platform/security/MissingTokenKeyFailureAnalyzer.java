package io.stockade.platform.security;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Says what to set when the service refuses to start for want of a token key. */
class MissingTokenKeyFailureAnalyzer extends AbstractFailureAnalyzer<MissingTokenKeyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, MissingTokenKeyException cause) {
    return new FailureAnalysis(
        cause.getMessage()
            + " Without one every request would be refused, and the local development key is"
            + " accepted only when the service runs on the local servers of ./stockade up (no"
            + " database and no Redis configured), on 127.0.0.1.",
        "Set SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PUBLIC_KEY_LOCATION (for example"
            + " file:/etc/stockade/jwt.pub), SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_JWK_SET_URI"
            + " or SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI; see docs/api.md,"
            + " Security.",
        cause);
  }
}
