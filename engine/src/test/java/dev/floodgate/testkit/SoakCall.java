package dev.floodgate.testkit;

/**
 * One call a soak's checker JVM made on one quota: its cost, its start and end (monotonic ns), and {@code happened}
 * false for a killed child's call in flight, which may or may not have been admitted.
 */
public record SoakCall(long cost, long start, long end, boolean happened)
{
}
