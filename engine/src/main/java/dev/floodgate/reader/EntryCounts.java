package dev.floodgate.reader;

/**
 * The quota entries of one walk of a table ({@link FloodgateReader#countEntries}, or of one action:
 * {@link FloodgateReader#countEntriesByAction}), counted by kind: the entries {@link FloodgateReader#entries} would
 * have listed in the same walk, none of them copied. Not a snapshot across segments, as the walk is not.
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
    /** No entry. */
    public static final EntryCounts NONE = new EntryCounts(0, 0, 0, 0, 0, 0);

    /**
     * @param kind a kind.
     * @return live entries of that kind.
     */
    public long live(final EntryKind kind)
    {
        return switch (kind)
        {
            case BUCKET -> buckets;
            case WINDOW -> windows;
            case BLOCKED -> blocked;
            case LEASE -> leases;
        };
    }

    /** @return live entries of every kind. */
    public long live()
    {
        return buckets + windows + blocked + leases;
    }

    /** @return entries, live and tombstoned: the slots they fill. */
    public long entries()
    {
        return live() + tombstoned;
    }

    /**
     * @param other counts of other entries (another action's).
     * @return both counted together.
     */
    public EntryCounts plus(final EntryCounts other)
    {
        return new EntryCounts(buckets + other.buckets, windows + other.windows, blocked + other.blocked,
            leases + other.leases, tombstoned + other.tombstoned, leaseBalance + other.leaseBalance);
    }
}
