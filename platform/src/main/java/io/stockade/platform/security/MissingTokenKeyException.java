package io.stockade.platform.security;

/** No key to verify bearer tokens with is configured: the service does not start (fail closed). */
final class MissingTokenKeyException extends IllegalStateException {

  MissingTokenKeyException() {
    super(
        "No key to verify bearer tokens is configured: set"
            + " spring.security.oauth2.resourceserver.jwt.public-key-location (an RSA public key"
            + " in PEM), jwk-set-uri or issuer-uri.");
  }
}
