package io.stockade.query.reconciliation;

import io.stockade.query.reconciliation.GateStates.GateState;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The admission gate's own state: open, being rebuilt, or closed and why (see {@link GateStates}).
 */
@RestController
class GateStateController {

  private final GateStates states;

  GateStateController(GateStates states) {
    this.states = states;
  }

  @GetMapping("/api/gate")
  GateState gate() {
    return states.read();
  }
}
