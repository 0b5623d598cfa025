package io.stockade.query.replay;

import java.lang.management.ManagementFactory;
import java.util.UUID;

/**
 * The name of this query-side instance: the owner of its claims on the projections' segments and of
 * the replays it coordinates. Unique per application context, so that two instances in one JVM (as
 * in the tests) never take each other's claims for their own.
 */
record QueryNode(String name) {

  static QueryNode unique() {
    return new QueryNode(
        ManagementFactory.getRuntimeMXBean().getName()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8));
  }
}
