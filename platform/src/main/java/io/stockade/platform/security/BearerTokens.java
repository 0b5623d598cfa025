package io.stockade.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpHeaders;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

/**
 * Finds a request's bearer token as Spring Security's {@link DefaultBearerTokenResolver} does, with
 * its defaults (the {@code Authorization} header only), but reads a well-formed header without its
 * regular expression {@code ^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$} (case-insensitive): matching a
 * token of several hundred characters against it is a few percent of a refused reservation's CPU.
 * Any other header (none, another scheme, a malformed token) goes to the default resolver, which
 * answers it as before: no token, or the error {@code invalid_token}.
 */
final class BearerTokens implements BearerTokenResolver {

  private static final String SCHEME = "Bearer ";

  private final BearerTokenResolver standard = new DefaultBearerTokenResolver();

  @Override
  public String resolve(HttpServletRequest request) {
    String token = wellFormed(request.getHeader(HttpHeaders.AUTHORIZATION));
    return token != null ? token : standard.resolve(request);
  }

  /**
   * The token of a header the default resolver's pattern matches; null for any other (then the
   * default resolver decides).
   */
  static String wellFormed(String header) {
    if (header == null || header.length() <= SCHEME.length()) {
      return null;
    }
    for (int i = 0; i < SCHEME.length(); i++) {
      char c = header.charAt(i);
      char expected = SCHEME.charAt(i);
      // ASCII case folding only, as the pattern's CASE_INSENSITIVE without UNICODE_CASE.
      if (c != expected
          && (c >= 0x80 || Character.toLowerCase(c) != Character.toLowerCase(expected))) {
        return null;
      }
    }
    int length = header.length();
    int i = SCHEME.length();
    while (i < length && tokenCharacter(header.charAt(i))) {
      i++;
    }
    if (i == SCHEME.length()) {
      return null;
    }
    while (i < length && header.charAt(i) == '=') {
      i++;
    }
    return i == length ? header.substring(SCHEME.length()) : null;
  }

  /** {@code [a-zA-Z0-9-._~+/]} (case-insensitive, which adds nothing to this class). */
  private static boolean tokenCharacter(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~'
        || c == '+'
        || c == '/';
  }
}
