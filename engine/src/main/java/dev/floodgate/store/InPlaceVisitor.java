package dev.floodgate.store;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Called with each quota entry in place, under its segment's guard and update lock
 * ({@link TableScans#forEachEntryInPlace}).
 */
@FunctionalInterface
public interface InPlaceVisitor
{
    /**
     * Must be quick, must not allocate per entry and must not call back into the table. The buffers are reused
     * for the next entry: copy what must outlive the call.
     *
     * @param key   the entry's 16 key bytes, in the file.
     * @param value the entry's value, in the file.
     */
    void visit(UnsafeBuffer key, Entry value);
}
