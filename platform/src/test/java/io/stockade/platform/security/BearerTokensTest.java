package io.stockade.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

/** The resolver answers every Authorization header exactly as Spring Security's default one. */
class BearerTokensTest {

  private final BearerTokens fast = new BearerTokens();
  private final DefaultBearerTokenResolver standard = new DefaultBearerTokenResolver();

  @Test
  void wellFormedHeadersGiveTheirTokenWithoutTheDefaultResolver() {
    assertThat(BearerTokens.wellFormed("Bearer abc.DEF-_~+/9==")).isEqualTo("abc.DEF-_~+/9==");
    assertThat(BearerTokens.wellFormed("bEARER x")).isEqualTo("x");
    assertThat(BearerTokens.wellFormed("Bearer ")).isNull();
    assertThat(BearerTokens.wellFormed("Bearer a=b")).isNull();
    assertThat(BearerTokens.wellFormed("Bearer  a")).isNull();
    assertThat(BearerTokens.wellFormed("Basic a")).isNull();
    assertThat(BearerTokens.wellFormed(null)).isNull();
  }

  @Test
  void everyHeaderIsAnsweredAsByTheDefaultResolver() {
    assertSame(null);
    for (String header :
        new String[] {
          "",
          "Bearer",
          "Bearer ",
          "bearer x",
          "BEARER x",
          "Bearer x\n",
          "Bearer x ",
          "Bearer =",
          "Bearer a==",
          "Bearer a==b",
          "Bearer a\u00e9",
          "Basic dXNlcg==",
          "Bearerx",
          "Bearer\tx",
          "Be\u0430rer x",
          "Bearer x\u212a"
        }) {
      assertSame(header);
    }
    Random random = new Random(21);
    String[] starts = {"Bearer ", "bearer ", "BeArEr ", "Bearer", "Token ", ""};
    char[] pool = {
      'a', 'Z', '0', '-', '.', '_', '~', '+', '/', '=', ' ', '\t', '%', '\u00e9', '\n'
    };
    for (int n = 0; n < 50_000; n++) {
      StringBuilder header = new StringBuilder(starts[random.nextInt(starts.length)]);
      int length = random.nextInt(12);
      for (int i = 0; i < length; i++) {
        header.append(pool[random.nextInt(pool.length)]);
      }
      assertSame(header.toString());
    }
  }

  private void assertSame(String header) {
    assertThat(outcome(fast, header))
        .as("header [%s]", header)
        .isEqualTo(outcome(standard, header));
  }

  private static String outcome(
      org.springframework.security.oauth2.server.resource.web.BearerTokenResolver resolver,
      String header) {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/reservations");
    if (header != null) {
      request.addHeader("Authorization", header);
    }
    try {
      return "token " + resolver.resolve(request);
    } catch (OAuth2AuthenticationException e) {
      return "error " + e.getError().getErrorCode() + " " + e.getError().getDescription();
    }
  }
}
