package io.stockade.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.platform.testing.TestTokens;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * The warm-up's own tokens: accepted beside the configured key's until the warm-up closes them,
 * refused from then on, and none can be made after.
 */
class WarmUpTokensTest {

  /** Stands for the service's configured decoder: it accepts no warm-up token. */
  private final JwtDecoder configured =
      token -> {
        if (token.equals(TestTokens.ALL_ROLES)) {
          return Jwt.withTokenValue(token).header("alg", "RS256").subject("test-user").build();
        }
        throw new org.springframework.security.oauth2.jwt.BadJwtException("not ours");
      };

  @Test
  void acceptsItsTokensUntilClosedThenRefusesThem() {
    WarmUpTokens tokens = new WarmUpTokens(Clock.systemUTC());
    JwtDecoder decoder = tokens.acceptingUntilClosed(configured);
    String token = tokens.mint(List.of(Roles.CLIENT), Duration.ofMinutes(1));

    Jwt accepted = decoder.decode(token);
    assertThat(accepted.getSubject()).isEqualTo(WarmUpTokens.SUBJECT);
    assertThat(accepted.getClaimAsStringList("roles")).containsExactly("client");

    tokens.close();

    assertThat(tokens.isOpen()).isFalse();
    assertThatThrownBy(() -> decoder.decode(token)).isInstanceOf(JwtException.class);
    assertThatThrownBy(() -> tokens.mint(List.of(Roles.CLIENT), Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void leavesOtherTokensToTheConfiguredDecoder() {
    WarmUpTokens tokens = new WarmUpTokens(Clock.systemUTC());
    JwtDecoder decoder = tokens.acceptingUntilClosed(configured);

    assertThat(decoder.decode(TestTokens.ALL_ROLES).getSubject()).isEqualTo("test-user");
    assertThatThrownBy(() -> decoder.decode(TestTokens.signedByAnotherKey()))
        .isInstanceOf(JwtException.class);
  }

  @Test
  void refusesTheTokensOfAnotherWarmUp() {
    WarmUpTokens mine = new WarmUpTokens(Clock.systemUTC());
    WarmUpTokens another = new WarmUpTokens(Clock.systemUTC());
    JwtDecoder decoder = mine.acceptingUntilClosed(configured);

    String foreign = another.mint(List.of(Roles.ADMIN), Duration.ofMinutes(1));

    assertThatThrownBy(() -> decoder.decode(foreign)).isInstanceOf(JwtException.class);
  }

  @Test
  void refusesAnExpiredWarmUpToken() {
    WarmUpTokens tokens = new WarmUpTokens(Clock.systemUTC());
    JwtDecoder decoder = tokens.acceptingUntilClosed(configured);

    String expired = tokens.mint(List.of(Roles.CLIENT), Duration.ofMinutes(-5));

    assertThatThrownBy(() -> decoder.decode(expired)).isInstanceOf(JwtException.class);
  }
}
