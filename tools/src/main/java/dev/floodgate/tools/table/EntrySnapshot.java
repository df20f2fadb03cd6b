package dev.floodgate.tools.table;

import dev.floodgate.Action;
import dev.floodgate.store.EntryLayout;
import org.agrona.DirectBuffer;

/**
 * A copy of one quota entry, taken inside {@code QuotaTable.forEachEntry} and formatted after the iteration
 * has let go of the segment, so a reader holds no lock while it formats or prints.
 *
 * @param kind             the entry's kind.
 * @param action           the action.
 * @param label            the identifier's label as stored (raw; escape before printing).
 * @param identifierLength the identifier's length in chars; longer than the label when it was cut.
 * @param limit            the limit the entry was created under.
 * @param windowMs         the window the entry was created under.
 * @param createdNanos     creation time, monotonic ns.
 * @param touchedNanos     last refusal (or creation), monotonic ns.
 * @param state            bucket TAT word or blocked count.
 * @param shardWords       window shard words; empty for other kinds.
 * @param tombstoned       true while the janitor ages the entry out (a reset or idle entry).
 */
public record EntrySnapshot(
    EntryKind kind,
    Action action,
    String label,
    int identifierLength,
    long limit,
    long windowMs,
    long createdNanos,
    long touchedNanos,
    long state,
    long[] shardWords,
    boolean tombstoned)
{
    /**
     * @param value a copy of an entry's value.
     * @return the snapshot, or null when the kind or action byte is unknown (a damaged or newer entry).
     */
    public static EntrySnapshot of(final DirectBuffer value)
    {
        final EntryKind kind = EntryKind.of(EntryLayout.kind(value));
        final int actionOrdinal = value.getByte(EntryLayout.ACTION_OFFSET);
        if (kind == null || actionOrdinal < 0 || actionOrdinal >= Action.values().length)
        {
            return null;
        }
        final int shards = EntryLayout.shardsOf(value);
        final long[] words = new long[shards];
        for (int shard = 0; shard < shards; shard++)
        {
            words[shard] = value.getLong(EntryLayout.shardOffset(shard));
        }
        return new EntrySnapshot(kind, Action.fromOrdinal(actionOrdinal), EntryLayout.readLabel(value),
            value.getInt(EntryLayout.IDENTIFIER_LENGTH_OFFSET), value.getLong(EntryLayout.LIMIT_OFFSET),
            value.getLong(EntryLayout.WINDOW_MS_OFFSET), value.getLong(EntryLayout.CREATED_OFFSET),
            value.getLong(EntryLayout.TOUCHED_OFFSET), kind == EntryKind.BLOCKED ? EntryLayout.blockedCount(value) :
            value.getLong(EntryLayout.STATE_OFFSET), words,
            value.getLong(EntryLayout.GENERATION_OFFSET) == EntryLayout.TOMBSTONE);
    }

    /** @return true when the stored label is a prefix of a longer identifier. */
    public boolean labelCut()
    {
        return identifierLength > label.length();
    }
}
