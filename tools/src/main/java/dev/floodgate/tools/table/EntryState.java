package dev.floodgate.tools.table;

import dev.floodgate.door.ShardedWindow;
import dev.floodgate.door.TokenBucket;

/**
 * What an entry's state words mean at a given moment, in the terms an operator thinks in: tokens left and
 * time to the next one for a bucket, used of limit and time left for the current window, refusals for a
 * blocked counter. Computed from a {@link EntrySnapshot} with the same arithmetic the doors use.
 *
 * @param tokens       bucket: whole tokens available now; otherwise -1.
 * @param nextTokenNs  bucket: nanoseconds to the next token, 0 when full; otherwise -1.
 * @param windowUsed   window: tokens used in the current window over every shard; otherwise -1.
 * @param shardUsed    window: tokens used in the current window per shard; otherwise empty.
 * @param shardCap     window: each shard's cap; otherwise empty.
 * @param windowLeftNs window: nanoseconds until the current window ends; otherwise -1.
 * @param blocked      blocked: refusals counted; otherwise -1.
 * @param ageNs        nanoseconds since the entry was created.
 */
public record EntryState(
    long tokens,
    long nextTokenNs,
    long windowUsed,
    long[] shardUsed,
    long[] shardCap,
    long windowLeftNs,
    long blocked,
    long ageNs)
{
    private static final long[] NONE = new long[0];

    /**
     * @param entry    a snapshot.
     * @param nowNanos the monotonic time (the same clock the writers read: same host, same boot).
     * @return its state at {@code nowNanos}.
     */
    public static EntryState of(final EntrySnapshot entry, final long nowNanos)
    {
        final long age = nowNanos - entry.createdNanos();
        switch (entry.kind())
        {
            case BUCKET:
                if (!TokenBucket.fits(entry.limit(), entry.windowMs()))
                {
                    return new EntryState(-1, -1, -1, NONE, NONE, -1, -1, age);
                }
                final TokenBucket bucket = new TokenBucket(entry.limit(), entry.windowMs());
                return new EntryState(bucket.available(entry.state(), nowNanos),
                    bucket.nanosToNextToken(entry.state(), nowNanos), -1, NONE, NONE, -1, -1, age);
            case WINDOW:
                final long[] words = entry.shardWords();
                final long[] used = new long[words.length];
                final long[] cap = new long[words.length];
                long total = 0;
                long leftNs = -1;
                if (entry.limit() >= 1 && entry.windowMs() >= 1)
                {
                    final ShardedWindow window = new ShardedWindow(entry.limit(), entry.windowMs(), words.length);
                    final long nowMs = Math.floorDiv(nowNanos, 1_000_000L);
                    final long number = window.windowNumber(nowMs);
                    for (int shard = 0; shard < words.length; shard++)
                    {
                        used[shard] = ShardedWindow.usedIn(words[shard], number);
                        cap[shard] = window.cap(shard);
                        total += used[shard];
                    }
                    leftNs = (number + 1) * entry.windowMs() * 1_000_000L - nowNanos;
                }
                return new EntryState(-1, -1, total, used, cap, leftNs, -1, age);
            default:
                return new EntryState(-1, -1, -1, NONE, NONE, -1, entry.state(), age);
        }
    }
}
