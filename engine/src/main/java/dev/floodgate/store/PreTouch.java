package dev.floodgate.store;

import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;

/**
 * Maps every page of a table's first tiers into this process's page table when it opens the table, so that no
 * check takes a page fault later.
 *
 * <p>Why: the file is allocated whole when it is created (not sparse), but each process that maps it starts with
 * no page-table entries, and its first touch of each page is a fault, taken by whichever check touches it first.
 * Most first touches come from cold checks inserting new keys, inside their segment's guard; two JVMs inserting
 * into the same segments then fault on each other's pages while holding the guard the other waits for. On this
 * project's virtual host a fault costs microseconds, and two JVMs warmed 100,000 new keys 2 to 3 times slower
 * than one JVM with two threads, before this (NOTES.md, "The cold path, third step").
 *
 * <p>A read of one byte per page is enough on {@code /dev/shm} (tmpfs): a read fault of a shared, writable
 * mapping of a tmpfs file installs a writable entry (shmem has no {@code page_mkwrite} and no write-back, so the
 * kernel does not track writes), and later writes do not fault. On a file system that writes back (ext4 under
 * {@code /tmp}) a write still faults once per page per write-back. Chained tiers, allocated when a segment
 * overflows, are mapped later and not touched here. The cost: open time, and every JVM's resident size includes
 * the whole table (shared pages, counted once in the host's memory but in each process's RSS). Stateless.
 */
final class PreTouch
{
    private PreTouch()
    {
    }

    /** @param map the table's map, open. */
    static void touch(final VanillaChronicleHash<?, ?, ?, ?> map)
    {
        final long base = map.bsAddress();
        // Chronicle maps pageAlign(dataStoreSize()) >= this from the file's offset 0, and extends the file to cover
        // it; never dataStoreSize() itself: it counts tiers other JVMs added after this mapping, beyond its end
        final long length = map.sizeInBytesWithoutTiers();
        final long page = OS.pageSize();
        for (long offset = 0; offset < length; offset += page)
        {
            UnsafeMemory.MEMORY.readVolatileByte(base + offset); // volatile: a plain load the JIT could drop
        }
    }
}
