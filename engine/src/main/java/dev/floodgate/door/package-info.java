/**
 * Internal: the two doors (the exact token bucket and the sharded window), charges, the per-process key cache
 * and policy planning. Works on entry memory through the store's entry accessor and knows no Chronicle type.
 * Nothing outside the engine module may use it.
 */
package dev.floodgate.door;
