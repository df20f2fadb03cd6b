/**
 * Internal: reclamation of idle entries in two passes a grace period apart. Nothing outside the engine module
 * may use it.
 */
package dev.floodgate.janitor;
