/**
 * Public API. {@link dev.floodgate.Floodgate} (open, the two doors, charges, reset, stats, policy),
 * {@link dev.floodgate.FloodgateConfig} and the value types and exceptions a caller sees. Together with
 * {@link dev.floodgate.reader} it is everything outside the engine may use: the tools, the JMH suite and
 * embedders alike (an ArchUnit test in each module keeps it so). No public signature here names an internal
 * type, and the internal packages ({@code store}, {@code door}, {@code janitor}) never depend on the facade,
 * only on the value types, so the packages form no cycle.
 */
package dev.floodgate;
