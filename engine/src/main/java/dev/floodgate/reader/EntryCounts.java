package dev.floodgate.reader;

/**
 * The quota entries of one walk of a table ({@link FloodgateReader#countEntries}), counted by kind: the entries
 * {@link FloodgateReader#entries} would have listed in the same walk, none of them copied. Not a snapshot across
 * segments, as the walk is not.
 *
 * @param buckets      live token buckets.
 * @param windows      live sharded windows.
 * @param blocked      live blocked counters.
 * @param leases       live cluster leases.
 * @param tombstoned   entries of every kind the janitor is ageing out (after a reset or idleness).
 * @param leaseBalance the live leases' balances summed: the node's tokens leased and not yet spent.
 */
public record EntryCounts(long buckets, long windows, long blocked, long leases, long tombstoned, long leaseBalance)
{
}
