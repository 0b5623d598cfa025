package io.stockade.api.draw;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A pre-queue draw's seed and the draw it gives, as the contract defines it (api.md 1.2, "Fair
 * start"), written once for the service that draws and for anyone who checks a draw: 32 random
 * bytes, here as lowercase hex; its commitment, published before the first queued reservation is
 * answered, the lowercase hex SHA-256 of the seed's bytes; each queued reservation's ticket the
 * lowercase hex HMAC-SHA256 of its id (UTF-8) keyed by the seed's bytes; the draw order the ids by
 * ticket, ascending.
 *
 * <p>Tickets are compared as strings: lowercase hex of one length sorts as the numbers it writes.
 * Two ids with one ticket would take a collision of HMAC-SHA256; the order then falls back to the
 * ids themselves, so that it is a total order whatever happens.
 *
 * @param hex the seed's 32 bytes, lowercase hex
 */
public record DrawSeed(String hex) {

  /** Bytes of a seed. */
  public static final int BYTES = 32;

  private static final HexFormat HEX = HexFormat.of();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Refuses anything but 32 bytes of hex; keeps it lowercase. */
  public DrawSeed {
    byte[] bytes;
    try {
      bytes = HEX.parseHex(hex.toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a draw's seed is hex: " + e.getMessage(), e);
    }
    if (bytes.length != BYTES) {
      throw new IllegalArgumentException(
          "a draw's seed has " + BYTES + " bytes, not " + bytes.length);
    }
    hex = hex.toLowerCase(Locale.ROOT);
  }

  /** A new seed from {@link SecureRandom}. */
  public static DrawSeed random() {
    byte[] seed = new byte[BYTES];
    RANDOM.nextBytes(seed);
    return new DrawSeed(HEX.formatHex(seed));
  }

  /** The seed's commitment: the lowercase hex SHA-256 of its bytes. */
  public String commitment() {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(HEX.parseHex(hex)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every Java platform", e);
    }
  }

  /**
   * A reservation's ticket: the lowercase hex HMAC-SHA256 of its id in UTF-8, keyed by the seed.
   */
  public String ticket(String reservationId) {
    return HEX.formatHex(mac().doFinal(reservationId.getBytes(StandardCharsets.UTF_8)));
  }

  /** The ids in draw order. */
  public List<String> order(Collection<String> reservationIds) {
    Mac mac = mac();
    List<Ticketed> ticketed = new ArrayList<>(reservationIds.size());
    for (String id : reservationIds) {
      ticketed.add(
          new Ticketed(HEX.formatHex(mac.doFinal(id.getBytes(StandardCharsets.UTF_8))), id));
    }
    ticketed.sort(Comparator.comparing(Ticketed::ticket).thenComparing(Ticketed::reservationId));
    return ticketed.stream().map(Ticketed::reservationId).toList();
  }

  /**
   * What is wrong with a published draw, if anything: a seed that is not 32 bytes of hex, a seed
   * whose SHA-256 is not the commitment, or an order that is not its ids sorted by ticket.
   *
   * @param seedHex the revealed seed, hex
   * @param commitment the commitment published before the draw
   * @param order the reservation ids in the published draw order
   */
  public static Optional<String> check(String seedHex, String commitment, List<String> order) {
    DrawSeed seed;
    try {
      seed = new DrawSeed(seedHex);
    } catch (IllegalArgumentException e) {
      return Optional.of("the seed is not one: " + e.getMessage());
    }
    String actual = seed.commitment();
    if (!actual.equalsIgnoreCase(commitment)) {
      return Optional.of("SHA-256 of the seed is " + actual + ", not the commitment " + commitment);
    }
    List<String> expected = seed.order(order);
    for (int i = 0; i < order.size(); i++) {
      if (!expected.get(i).equals(order.get(i))) {
        return Optional.of(
            "position "
                + (i + 1)
                + " holds "
                + order.get(i)
                + " where the seed puts "
                + expected.get(i));
      }
    }
    return Optional.empty();
  }

  private Mac mac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(HEX.parseHex(hex), "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
    }
  }

  private record Ticketed(String ticket, String reservationId) {}
}
