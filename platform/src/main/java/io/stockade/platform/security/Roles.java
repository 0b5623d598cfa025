package io.stockade.platform.security;

/**
 * The roles a bearer token carries in its {@code roles} claim (an array of strings), as given to
 * {@code hasRole}. {@code admin} implies {@code client}, {@code reader} and {@code metrics};
 * nothing else implies anything.
 */
public final class Roles {

  /** Reserves, confirms and releases (command side). */
  public static final String CLIENT = "client";

  /** Reads stock, reservations, audits and reconciliation (query side). */
  public static final String READER = "reader";

  /**
   * Reads the Prometheus scrape path ({@code /actuator/prometheus}) and nothing else: the role of a
   * monitoring system's token, which then holds no admin rights.
   */
  public static final String METRICS = "metrics";

  /** Registers SKUs, replenishes, starts replays, reads the actuator; implies the others. */
  public static final String ADMIN = "admin";

  /** The claim that lists a token's roles. */
  static final String CLAIM = "roles";

  private Roles() {}
}
