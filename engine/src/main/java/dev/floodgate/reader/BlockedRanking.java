package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.Wtf8;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The {@code n} blocked counters with the most refusals among those one walk of a table finds
 * ({@link FloodgateReader#countEntriesByAction}), in the order a stable sort of all of them would give: refusals
 * descending, then label ascending ({@link String#compareTo}), then the order the walk found them in (an entry a
 * walk sees twice, racing a backward shift, is ranked twice, as a list of the walk would hold it twice).
 *
 * <p>Kept in a bounded heap whose root is the counter ranked last; the walk offers each counter through a flyweight,
 * and one that does not rank above the root is not copied. One that does is copied into the root's slot (the slots
 * are reused; a label's bytes, not its text), so a walk over any number of counters allocates only a slot for each of
 * the {@code n} kept, and their text when {@link #top} is read. A tie on refusals compares the labels' bytes while
 * both are ASCII (the order of their text); a label that is not is decoded to compare it (and kept decoded).
 *
 * <p>Not thread-safe: one per walk, read once it has returned.
 */
public final class BlockedRanking
{
    private static final int FIRST_SLOTS = 16;

    private final Action action;
    private final boolean withTombstoned;
    private final int n;
    private Kept[] heap;
    private int size;
    private Kept pending = new Kept();
    private long sequence;

    private BlockedRanking(final Action action, final boolean withTombstoned, final int n)
    {
        if (n < 0)
        {
            throw new IllegalArgumentException("n=" + n + ": expected 0 or more");
        }
        this.action = action;
        this.withTombstoned = withTombstoned;
        this.n = n;
        this.heap = new Kept[Math.min(n, FIRST_SLOTS)];
    }

    /**
     * Live counters only: what {@code floodgate top} and {@code watch} list.
     *
     * @param action the action, or null for every action.
     * @param n      how many to keep, 0 or more.
     * @return an empty ranking, to hand to one walk.
     */
    public static BlockedRanking live(final Action action, final int n)
    {
        return new BlockedRanking(action, false, n);
    }

    /**
     * Live counters, and tombstoned ones that still hold refusals: a check's revival within the janitor's grace brings
     * their count back (one a reset zeroed is not listed). What {@code Floodgate.topBlocked} lists.
     *
     * @param action the action.
     * @param n      how many to keep, 0 or more.
     * @return an empty ranking, to hand to one walk.
     */
    public static BlockedRanking withRevivable(final Action action, final int n)
    {
        return new BlockedRanking(Objects.requireNonNull(action, "action"), true, n);
    }

    /** @return the counters kept, most refusals first: at most {@code n}. */
    public List<BlockedCount> top()
    {
        final Kept[] ranked = Arrays.copyOf(heap, size);
        Arrays.sort(ranked, (a, b) -> a == b ? 0 : ranksBefore(a, b) ? -1 : 1);
        final List<BlockedCount> top = new ArrayList<>(size);
        for (final Kept kept : ranked)
        {
            top.add(new BlockedCount(Action.fromOrdinal(kept.action), kept.text(), kept.identifierLength,
                kept.blocked));
        }
        return Collections.unmodifiableList(top);
    }

    /**
     * Offers a blocked counter the walk is decoding: copies it aside when this ranking lists it and it may rank among
     * those kept. Reads the value only during the call, as a decoder must.
     *
     * @param entry      the counter, over its value in the file.
     * @param ordinal    its action's ordinal.
     * @param tombstoned whether the janitor is ageing it out.
     * @param blocked    its refusals.
     * @return true when it was copied aside: {@link #keepOffered} ranks it once the walk finds it still in place.
     */
    boolean offer(final Entry entry, final int ordinal, final boolean tombstoned, final long blocked)
    {
        if ((action != null && ordinal != action.ordinal()) || (tombstoned && (!withTombstoned || blocked == 0)) ||
            n == 0 || (size == n && blocked < heap[0].blocked))
        {
            return false;
        }
        pending.copy(entry, ordinal, blocked);
        return true;
    }

    /** Ranks the counter {@link #offer} copied aside last: the walk found it still in place. */
    void keepOffered()
    {
        pending.sequence = sequence++;
        if (size < n)
        {
            if (size == heap.length)
            {
                heap = Arrays.copyOf(heap, (int)Math.min(n, 2L * size));
            }
            heap[size] = pending;
            siftUp(size++);
            pending = new Kept();
        }
        else if (ranksBefore(pending, heap[0]))
        {
            final Kept out = heap[0];
            heap[0] = pending;
            pending = out; // its slot is reused for the next offer
            siftDown(0);
        }
    }

    /** The heap keeps every slot ranked before its parent or the same: the root is ranked last. */
    private void siftUp(final int from)
    {
        int child = from;
        while (child > 0)
        {
            final int parent = (child - 1) >>> 1;
            if (!ranksBefore(heap[parent], heap[child]))
            {
                return;
            }
            swap(parent, child);
            child = parent;
        }
    }

    private void siftDown(final int from)
    {
        int parent = from;
        while (true)
        {
            final int left = 2 * parent + 1;
            if (left >= size)
            {
                return;
            }
            final int right = left + 1;
            final int last = right < size && ranksBefore(heap[left], heap[right]) ? right : left;
            if (!ranksBefore(heap[parent], heap[last]))
            {
                return;
            }
            swap(parent, last);
            parent = last;
        }
    }

    private void swap(final int i, final int j)
    {
        final Kept t = heap[i];
        heap[i] = heap[j];
        heap[j] = t;
    }

    /** The sort's order: refusals descending, label ascending, then the walk's order (never equal: one sequence each). */
    private static boolean ranksBefore(final Kept a, final Kept b)
    {
        if (a.blocked != b.blocked)
        {
            return a.blocked > b.blocked;
        }
        final int labels = a.ascii && b.ascii ?
            Arrays.compare(a.label, 0, a.labelLength, b.label, 0, b.labelLength) : a.text().compareTo(b.text());
        return labels != 0 ? labels < 0 : a.sequence < b.sequence;
    }

    /** A counter copied aside: a slot of the heap, or the one being offered. */
    private static final class Kept
    {
        final byte[] label = new byte[EntryLayout.LABEL_MAX_BYTES];
        int labelLength;
        boolean ascii;
        String text;
        int action;
        int identifierLength;
        long blocked;
        long sequence;

        void copy(final Entry entry, final int ordinal, final long count)
        {
            labelLength = entry.labelBytes(label);
            ascii = true;
            for (int i = 0; i < labelLength; i++)
            {
                ascii &= label[i] >= 0;
            }
            text = null;
            action = ordinal;
            identifierLength = entry.identifierLength();
            blocked = count;
        }

        /** @return the label as {@link Entry#label} decodes it; decoded once per copy. */
        String text()
        {
            if (text == null)
            {
                text = Wtf8.decode(Arrays.copyOf(label, labelLength));
            }
            return text;
        }
    }
}
