package dev.floodgate.door;

import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.Resolved;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * This process's handle on one entry: where its value is mapped, the generation it had when it was
 * resolved, and the arithmetic of the limit it was created under. Immutable but for the window cursor, a
 * cache of the current window's bounds that any thread may replace (it is an immutable object, so a racing
 * reader sees either the old or the new one, whole).
 *
 * <p>The address is only trusted while {@code buffer.getLongAcquire(GENERATION) == generation}: the janitor
 * changes the generation before an entry's memory can ever be reused (see {@code Janitor}).
 */
public final class QuotaSlot
{
    final String identifier;
    final int hash;
    final int kindAction;
    final UnsafeBuffer buffer;
    final long generation;
    final TokenBucket bucket;
    final ShardedWindow window;
    WindowCursor cursor;

    /** The current window's number and bounds in monotonic milliseconds. */
    record WindowCursor(long number, long startMs, long endMs)
    {
    }

    QuotaSlot(final String identifier, final int hash, final int kindAction, final Resolved resolved,
        final int shards)
    {
        this.identifier = identifier;
        this.hash = hash;
        this.kindAction = kindAction;
        this.buffer = resolved.buffer();
        this.generation = resolved.generation();
        final byte kind = (byte)(kindAction >>> 8);
        this.bucket = kind == EntryLayout.KIND_BUCKET ? new TokenBucket(resolved.limit(), resolved.windowMs()) : null;
        this.window = kind == EntryLayout.KIND_WINDOW ?
            new ShardedWindow(resolved.limit(), resolved.windowMs(), shards) : null;
        this.cursor = new WindowCursor(0, 0, 0);
    }

    boolean matches(final CharSequence id, final int h, final int ka)
    {
        return kindAction == ka && (identifier == id || hash == h && identifier.contentEquals(id));
    }

    boolean isCurrent()
    {
        return buffer.getLongAcquire(EntryLayout.GENERATION_OFFSET) == generation;
    }

    WindowCursor cursor(final long nowMs)
    {
        final WindowCursor c = cursor;
        if (nowMs >= c.startMs && nowMs < c.endMs)
        {
            return c;
        }
        final long number = window.windowNumber(nowMs);
        final long start = number * window.windowMs();
        final WindowCursor fresh = new WindowCursor(number, start, start + window.windowMs());
        cursor = fresh;
        return fresh;
    }
}
