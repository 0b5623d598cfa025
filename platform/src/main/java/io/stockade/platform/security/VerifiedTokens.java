package io.stockade.platform.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * Remembers the tokens its verifier accepted, so that a caller sending the same bearer token again
 * and again (an order service forwarding a flash sale) has its signature and claims checked once
 * rather than at every request: the signature was a sixth of a refused reservation's CPU.
 *
 * <p>A token is kept until its {@code exp}, and at most {@code maxAge}: a remembered token is
 * accepted without its key being looked at again, so a key withdrawn from a JWK set (or a token an
 * identity provider revoked) is still honoured by this instance until its entry goes. A token
 * expires here at {@code exp} exactly, never later (the verifier itself allows a clock skew past
 * it). A refused token is never remembered: every refusal is the verifier's, at every request. At
 * most {@code maxSize} tokens are kept; when full, expired ones go first, then any.
 *
 * <p>Tokens are keyed by their own text: a lookup compares it with a remembered token only when
 * their hashes match, and a token is only remembered once verified.
 */
final class VerifiedTokens implements JwtDecoder {

  private final JwtDecoder verifier;
  private final int maxSize;
  private final Duration maxAge;
  private final Clock clock;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  private record Entry(Jwt jwt, Instant until) {}

  VerifiedTokens(JwtDecoder verifier, int maxSize, Duration maxAge, Clock clock) {
    if (maxSize < 1) {
      throw new IllegalArgumentException("maxSize must be at least 1, was " + maxSize);
    }
    this.verifier = verifier;
    this.maxSize = maxSize;
    this.maxAge = maxAge;
    this.clock = clock;
  }

  @Override
  public Jwt decode(String token) throws JwtException {
    Instant now = clock.instant();
    Entry entry = entries.get(token);
    if (entry != null) {
      if (now.isBefore(entry.until())) {
        return entry.jwt();
      }
      entries.remove(token, entry);
    }
    Jwt jwt = verifier.decode(token);
    Instant expiresAt = jwt.getExpiresAt();
    if (expiresAt != null) {
      Instant until = now.plus(maxAge);
      if (expiresAt.isBefore(until)) {
        until = expiresAt;
      }
      if (now.isBefore(until)) {
        remember(token, new Entry(jwt, until), now);
      }
    }
    return jwt;
  }

  /** How many tokens are remembered now. */
  int size() {
    return entries.size();
  }

  /**
   * Only after a verification, which costs far more than this lock: the bound holds under any
   * concurrency because every insertion makes its room first, one at a time.
   */
  private synchronized void remember(String token, Entry entry, Instant now) {
    if (entries.size() >= maxSize && !entries.containsKey(token)) {
      entries.values().removeIf(old -> !now.isBefore(old.until()));
      Iterator<String> any = entries.keySet().iterator();
      while (entries.size() >= maxSize && any.hasNext()) {
        any.next();
        any.remove();
      }
    }
    entries.put(token, entry);
  }
}
