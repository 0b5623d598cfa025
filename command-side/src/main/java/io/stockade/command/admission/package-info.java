/**
 * The admission gate's ports, each held by the use cases that need it ({@link
 * io.stockade.command.admission.Reserving}, {@link
 * io.stockade.command.admission.ReservationTransitions}, {@link
 * io.stockade.command.admission.PendingAdmissions}, {@link io.stockade.command.admission.SkuStock},
 * {@link io.stockade.command.admission.SaleControl}, {@link
 * io.stockade.command.admission.StockAdjustments}), what it is asked ({@link
 * io.stockade.command.admission.Admission}), what it answers ({@link
 * io.stockade.command.admission.AdmissionDecision}) and its exceptions. The use cases of the
 * reservation and SKU packages see this package only.
 *
 * <p>Its parts, by role: {@code redis} (the operations as Lua scripts and their wiring: sessions,
 * servers, the key layout), {@code decisions} (the decision log drained from Redis into the
 * database) and {@code rebuild} (the keeper that fences gate epochs and rebuilds the gate from the
 * record, with its checkpoints). Each part knows only the ones before it in that list; the command
 * side's ArchitectureTest holds that.
 */
package io.stockade.command.admission;
