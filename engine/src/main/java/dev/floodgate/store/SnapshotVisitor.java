package dev.floodgate.store;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Called with a verified copy of each quota entry, with no guard held ({@link TableScans#forEachEntryUnguarded}):
 * whatever it concludes from the copy must be decided again under the entry's lock before anything is written.
 */
@FunctionalInterface
public interface SnapshotVisitor
{
    /**
     * Must not allocate per entry. The buffers are reused for the next entry: copy what must outlive the call. It may
     * call into the table (no guard is held); the walk goes on where it was.
     *
     * @param key   a copy of the entry's 16 key bytes.
     * @param value a copy of the entry's value, whole: taken between two equal loads of its slot and generation.
     */
    void visit(UnsafeBuffer key, Entry value);
}
