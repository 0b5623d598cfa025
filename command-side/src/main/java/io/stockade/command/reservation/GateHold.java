package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.AdmissionId;
import java.util.List;

/**
 * What the gate holds of a recorded reservation: the admission its {@code StockReserved} records,
 * which the gate's steps name, its lines, which say where the gate holds it, and, once confirmed in
 * part, the units sold.
 *
 * @param confirmed the units sold by a partial confirmation, or null (not confirmed, or wholly)
 */
record GateHold(
    AdmissionId admission, List<ReservationLine> lines, List<ReservationLine> confirmed) {

  GateHold {
    lines = List.copyOf(lines);
    confirmed = confirmed == null ? null : List.copyOf(confirmed);
  }

  /** The units sold, once confirmed: every reserved one unless confirmed in part. */
  List<ReservationLine> sold() {
    return confirmed == null ? lines : confirmed;
  }
}
