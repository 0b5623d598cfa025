package io.stockade.command.admission.redis;

import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.StockAdjustments;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * Every port of the gate on one object, for tests that drive the gate through all of them: each
 * call goes to the part that implements the port that declares it, as the service's callers reach
 * them. The service has no such object; its callers hold the ports they use.
 */
public interface WholeGate
    extends Reserving,
        ReservationTransitions,
        PendingAdmissions,
        SkuStock,
        SaleControl,
        StockAdjustments {

  /** The ports of {@code gate}'s parts. */
  static WholeGate of(GateOperations gate) {
    Map<Class<?>, Object> parts =
        Map.of(
            Reserving.class, gate.reserve(),
            ReservationTransitions.class, gate.transitions(),
            PendingAdmissions.class, gate.pending(),
            SkuStock.class, gate.stock(),
            SaleControl.class, gate.sale(),
            StockAdjustments.class, gate.adjustments());
    return (WholeGate)
        Proxy.newProxyInstance(
            WholeGate.class.getClassLoader(),
            new Class<?>[] {WholeGate.class},
            (proxy, method, args) -> {
              Object part = parts.get(method.getDeclaringClass());
              if (part == null) {
                throw new UnsupportedOperationException(method.toString());
              }
              try {
                return method.invoke(part, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
