/**
 * Micrometer meters for Floodgate ({@link dev.floodgate.metrics.FloodgateMetrics}). Public API, built on the
 * public API of {@code dev.floodgate} only. Micrometer is an optional dependency of the engine: a broker that
 * does not use this package needs no Micrometer on its class path.
 */
package dev.floodgate.metrics;
