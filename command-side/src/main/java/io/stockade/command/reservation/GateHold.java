package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.AdmissionId;
import java.util.List;

/**
 * What the gate holds of a recorded reservation: the admission its {@code StockReserved} records,
 * which the gate's confirm and release name, and its lines, which say where the gate holds it.
 */
record GateHold(AdmissionId admission, List<ReservationLine> lines) {

  GateHold {
    lines = List.copyOf(lines);
  }
}
