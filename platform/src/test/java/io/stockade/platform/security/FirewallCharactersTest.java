package io.stockade.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The predicates accept exactly what Spring Security's regular expressions accept. */
class FirewallCharactersTest {

  // StrictHttpFirewall's own patterns (spring-security-web 7).
  private static final Pattern NAMES = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");
  private static final Pattern VALUES =
      Pattern.compile("[\\p{IsAssigned}&&[[^\\p{IsControl}]||\\t]]*");

  @Test
  void everyCodePointAloneIsJudgedAsByTheRegularExpressions() {
    for (int codePoint = 0; codePoint <= Character.MAX_CODE_POINT; codePoint++) {
      String text = new String(Character.toChars(codePoint));
      assertSame(text);
    }
  }

  @Test
  void mixedTextsLoneSurrogatesAndTheEmptyStringAreJudgedAsByTheRegularExpressions() {
    assertSame("");
    assertSame("Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln");
    assertSame("a\tb");
    assertSame("a\nb");
    assertSame("\ud800");
    assertSame("x\udc00y");
    assertSame("\ud83d\ude00 ok");
    Random random = new Random(17);
    char[] pool = {
      'a', ' ', '~', '\t', '\r', '\u007f', '\u0085', '\u00e9', '\u0378', '\ud800', '\udc00',
      '\ufffe', '\u2028'
    };
    for (int n = 0; n < 100_000; n++) {
      char[] text = new char[random.nextInt(8)];
      for (int i = 0; i < text.length; i++) {
        text[i] = pool[random.nextInt(pool.length)];
      }
      assertSame(new String(text));
    }
  }

  @Test
  void controlCharactersAndUnassignedCodePointsAreRefused() {
    assertThat(FirewallCharacters.value("Bearer x\u0000")).isFalse();
    assertThat(FirewallCharacters.value("x\r\nInjected: 1")).isFalse();
    assertThat(FirewallCharacters.name("X-\u0378")).isFalse();
    assertThat(FirewallCharacters.name("a\tb")).isFalse();
    assertThat(FirewallCharacters.value("a\tb")).isTrue();
  }

  private static void assertSame(String text) {
    assertThat(FirewallCharacters.name(text))
        .as("name %s", text.codePoints().boxed().toList())
        .isEqualTo(NAMES.matcher(text).matches());
    assertThat(FirewallCharacters.value(text))
        .as("value %s", text.codePoints().boxed().toList())
        .isEqualTo(VALUES.matcher(text).matches());
  }
}
