package dev.floodgate.store;

/**
 * The layout of a table's lock file ({@code <table>.lock}, {@link SlotLocks#lockFileOf}), the one place it is
 * written down. Every byte lock is an exclusive {@code fcntl} (POSIX record) lock on one byte, which the kernel drops
 * when its process dies; the words are mapped and read by every process of the table.
 *
 * <pre>
 *   0                    slot 0's owner word (64 bits)      byte 0 is also slot 0's lock byte
 *   8                    slot 1's owner word                byte 1 is slot 1's lock byte
 *   ...                  {@link FileHeader#MAX_PROCESSES} words of {@link #SLOT_WORD_LENGTH} bytes  ({@link SlotLocks})
 *   1000 REPLACE_BYTE    the replace lock's byte: a table from a previous boot is replaced under it
 *                        ({@link BuildLocks})
 *   1023 LENGTH - 1      last byte, written once to give the file its length; the file is mapped whole
 *   2048 CREATOR_BASE    {@link #CREATORS} creator lock bytes, past the file's end: a process building the table
 *                        holds one and names its temporary file after it  ({@link BuildLocks})
 *   3072 CLAIM_BASE      {@link FileHeader#MAX_PROCESSES} claim lock bytes, past the file's end: byte 3072 + k
 *                        is held by a process claiming slot k, for the claim only  ({@link SlotLocks#claimSlot})
 * </pre>
 *
 * <p>A lock needs no byte of the file under it, so the creator and claim bytes lie past the end, each range at a
 * multiple of {@link #LENGTH} (1024 to 2047 unused). Every offset is fixed: engines of other versions take the same
 * bytes on the same file ({@code LockFileLayoutTest} pins the numbers).
 */
final class LockFileLayout
{
    /** The mapped file's length: 1 KiB. */
    static final int LENGTH = 1024;
    /** An owner word's length; slot k's word is at k times this, and byte k is slot k's lock byte. */
    static final int SLOT_WORD_LENGTH = 8;
    /** The replace lock's byte, past the slot words. */
    static final long REPLACE_BYTE = 1000;
    /** Creators that can build the table at once; a byte each, from {@link #CREATOR_BASE}. */
    static final int CREATORS = 64;
    /** The first creator lock byte, 2048: twice the file's length (the range right after the file is unused). */
    static final long CREATOR_BASE = 2L * LENGTH;
    /** The first claim lock byte, slot 0's, 3072: a file's length after the creators' first byte. */
    static final long CLAIM_BASE = CREATOR_BASE + LENGTH;

    static
    {
        if (FileHeader.MAX_PROCESSES * SLOT_WORD_LENGTH > REPLACE_BYTE || CREATORS > LENGTH ||
            FileHeader.MAX_PROCESSES > LENGTH)
        {
            throw new AssertionError("the lock file's ranges overlap");
        }
    }

    private LockFileLayout()
    {
    }

    /** @param slot a process slot. @return the offset of its owner word. */
    static int slotWordOffset(final int slot)
    {
        return SLOT_WORD_LENGTH * slot;
    }
}
