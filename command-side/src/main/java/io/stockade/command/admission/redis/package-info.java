/**
 * The gate in Redis: one class per group of operations (reserve, transitions, pending, stock, sale,
 * adjustments, bucket moves), the scripts they run ({@code src/main/lua}), the sessions and servers
 * they run them on and the key layout. A new gate operation goes here: a script, a method on the
 * part it belongs to, and its line in the port.
 */
package io.stockade.command.admission.redis;
