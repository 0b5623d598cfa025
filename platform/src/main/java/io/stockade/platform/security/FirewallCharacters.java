package io.stockade.platform.security;

/**
 * The characters Spring Security's {@code StrictHttpFirewall} allows in header names and values,
 * checked without a regular expression. The firewall checks a header each time it is read (the
 * bearer token filters alone read {@code Authorization} several times a request), by default with
 * {@code [\p{IsAssigned}&&[^\p{IsControl}]]*} for names and {@code
 * [\p{IsAssigned}&&[[^\p{IsControl}]||\t]]*} for values: a few percent of a refused reservation's
 * CPU. These predicates accept exactly the same strings: every code point assigned in Unicode and
 * not a control character (values: or a tab); printable ASCII, nearly every header's whole text,
 * takes one comparison per character.
 */
final class FirewallCharacters {

  private FirewallCharacters() {}

  /** Header and parameter names: {@code [\p{IsAssigned}&&[^\p{IsControl}]]*}. */
  static boolean name(String text) {
    return allowed(text, false);
  }

  /** Header values: {@code [\p{IsAssigned}&&[[^\p{IsControl}]||\t]]*}. */
  static boolean value(String text) {
    return allowed(text, true);
  }

  private static boolean allowed(String text, boolean tab) {
    int length = text.length();
    int i = 0;
    while (i < length) {
      char c = text.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        i++;
        continue;
      }
      int codePoint = text.codePointAt(i);
      int type = Character.getType(codePoint);
      if (type == Character.UNASSIGNED
          || (type == Character.CONTROL && !(tab && codePoint == '\t'))) {
        return false;
      }
      i += Character.charCount(codePoint);
    }
    return true;
  }
}
