package dev.floodgate.reader;

import dev.floodgate.door.EntryArithmetic;
import dev.floodgate.store.PolicyRegion;

/**
 * What an entry's state words mean at a given moment, in an operator's terms, computed with the doors' own
 * arithmetic under the file's policy ({@link FloodgateReader#state}): a bucket as the next check would see it
 * (converted to the policy's units when they are newer), a window in the window the policy's regimes number at that
 * moment. Fields that do not apply to the entry's kind are -1 (arrays empty).
 *
 * @param tokens       bucket: whole tokens the next check would find; -1 when the units are unreadable. Lease: its
 *                     balance, tokens leased from the cluster and not yet spent.
 * @param capacity     bucket: the limit of those tokens (the policy's, once the next check converts).
 * @param nextTokenNs  bucket: nanoseconds to the next token, 0 when full.
 * @param windowLimit  window: the limit of the regime the current window belongs to (0: the action is off).
 * @param windowMs     window: that regime's window.
 * @param windowUsed   window: tokens used in the current window, every shard.
 * @param shardUsed    window: used per shard.
 * @param shardCap     window: each shard's cap.
 * @param windowLeftNs window: nanoseconds until the current window ends.
 * @param blocked      blocked: refusals counted.
 * @param ageNs        nanoseconds since the entry was created.
 */
public record EntryState(
    long tokens,
    long capacity,
    long nextTokenNs,
    long windowLimit,
    long windowMs,
    long windowUsed,
    long[] shardUsed,
    long[] shardCap,
    long windowLeftNs,
    long blocked,
    long ageNs)
{
    /**
     * @param entry    an entry of the file.
     * @param block    the file's current policy block of the entry's action; null when it has none.
     * @param shards   the file's shard count.
     * @param nowNanos the monotonic time (the writers' clock: same host, same boot).
     * @return what the entry means at {@code nowNanos}.
     */
    static EntryState at(final TableEntry entry, final PolicyRegion.Block block, final int shards, final long nowNanos)
    {
        final long age = nowNanos - entry.createdNanos();
        final long[] none = new long[0];
        switch (entry.kind())
        {
            case BUCKET ->
            {
                final EntryArithmetic.Bucket bucket = EntryArithmetic.bucket(entry.limit(), entry.windowMs(),
                    entry.unitsVersion(), entry.stateWord(), block, nowNanos);
                return bucket == null ? new EntryState(-1, entry.limit(), -1, -1, -1, -1, none, none, -1, -1, age) :
                    new EntryState(bucket.tokens(), bucket.capacity(), bucket.nanosToNextToken(), -1, -1, -1, none, none,
                    -1, -1, age);
            }
            case WINDOW ->
            {
                if (block == null)
                {
                    return new EntryState(-1, -1, -1, 0, -1, 0, none, none, -1, -1, age);
                }
                final EntryArithmetic.Window window = EntryArithmetic.window(entry.shardWords(), entry.shardNewest(), block, shards,
                    nowNanos);
                return new EntryState(-1, -1, -1, window.limit(), window.windowMs(), window.used(), window.shardUsed(),
                    window.shardCap(), window.nanosLeft(), -1, age);
            }
            case LEASE ->
            {
                return new EntryState(entry.leaseBalance(), -1, -1, -1, -1, -1, none, none, -1, -1, age);
            }
            default ->
            {
                return new EntryState(-1, -1, -1, -1, -1, -1, none, none, -1, entry.blocked(), age);
            }
        }
    }
}
