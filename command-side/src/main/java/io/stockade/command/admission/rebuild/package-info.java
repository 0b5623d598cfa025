/**
 * The keeper of the gate: it opens a session on a gate epoch, fences admissions of ended epochs,
 * and when Redis lost data rebuilds the gate from the event store (from the newest checkpoint and
 * the events after it), reporting its state to health and metrics.
 */
package io.stockade.command.admission.rebuild;
