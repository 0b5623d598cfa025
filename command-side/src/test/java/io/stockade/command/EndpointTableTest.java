package io.stockade.command;

import io.stockade.platform.testing.EndpointTable;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint of the command side's controllers has its row in docs/api.md's table of endpoints,
 * and every status it declares is in that row or among those the table gives every endpoint.
 */
class EndpointTableTest {

  @Test
  void everyStatusAControllerDeclaresIsInTheTableOfEndpoints() {
    new EndpointTable("command", "io.stockade.command").verify();
  }
}
