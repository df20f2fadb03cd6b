package dev.floodgate.store;

import org.agrona.concurrent.UnsafeBuffer;

/** Called with a copy of each quota entry ({@link TableScans#forEachEntry}). */
@FunctionalInterface
public interface EntryVisitor
{
    /**
     * @param key   the entry's key (a fresh array).
     * @param value a copy of the entry's value, taken under the segment's guard.
     */
    void visit(byte[] key, UnsafeBuffer value);
}
