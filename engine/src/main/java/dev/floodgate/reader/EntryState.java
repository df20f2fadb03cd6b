package dev.floodgate.reader;

/**
 * What an entry's state words mean at a given moment, in an operator's terms, computed with the doors' own
 * arithmetic under the file's policy ({@link FloodgateReader#state}). Fields that do not apply to the entry's
 * kind are -1 (arrays empty).
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
}
