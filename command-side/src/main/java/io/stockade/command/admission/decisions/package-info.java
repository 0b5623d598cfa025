/**
 * The decision log: the gate appends every decision to a Redis stream in the same script call; the
 * drain moves the entries into the database in admission order, once each.
 */
package io.stockade.command.admission.decisions;
