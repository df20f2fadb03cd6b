package dev.floodgate.store;

import dev.floodgate.Action;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The file's own record: identity, the generation counter, table-wide counters and the registry of attached
 * processes. It is the value of the reserved key whose 16 bytes are all zero (quota keys never have kind 0),
 * inserted when the file is created and never removed, so its address is resolved once per process and read
 * and written without any Chronicle Map lock.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Magic "FLOODGT\0" (64)                        |   0  line 0: identity, immutable
 *  +-------------------------------+-------------------------------+
 *  |  Format version (32)          |  Shard count (32)             |   8
 *  +-------------------------------+-------------------------------+
 *  |                 Capacity, entries (64)                        |  16
 *  |                 Created, wall-clock ms (64)                   |  24
 *  |                 Created, monotonic ns (64)                    |  32
 *  |                 Boot id (128)                                 |  40
 *  +---------------------------------------------------------------+
 *  |                 Key secret (128)                              |  64  line 1
 *  +---------------------------------------------------------------+
 *  |                 Generation counter (64)                       | 128  line 2
 *  +---------------------------------------------------------------+
 *  |  Janitor runs | Reaped | Tombstoned | Revived | Entry count   | 192  line 3: counters
 *  |    | Entry count repairs given up | (0) | (0)                 |
 *  +---------------------------------------------------------------+
 *  |  Table-full events, one 64-bit counter per action             | 256  line 4
 *  +---------------------------------------------------------------+
 *  |  Degraded checks (table guard busy), one counter per action   | 320  line 5
 *  +---------------------------------------------------------------+
 *  |                 Policy generation (64): 0 = none published    | 384  line 6: read by every check
 *  +---------------------------------------------------------------+
 *  |  Cluster counters: round trips | tokens leased | refunded |    | 448  line 7: the node's cluster
 *  |    unavailable | refused | fallbacks refused | local | (0)    |       totals, {@link ClusterCounterRegion}
 *  +---------------------------------------------------------------+
 *  |  Process slot 0 (64 bytes): owner word (slot, token) | pid |   | 512  lines 8..71
 *  |    start ms | heartbeat ns | attached ns | resumed ns        |
 *  |  ... {@link #MAX_PROCESSES} slots                             |
 *  +---------------------------------------------------------------+
 *  |  Policy record 0: one 128-byte block per action               | 4608 (generation even)
 *  |  Policy record 1: one 128-byte block per action               | 5248 (generation odd)
 *  +---------------------------------------------------------------+
 *  |  Retired counters: per action admitted | refused | shadowed | | 5888 (folded totals of closed
 *  |    never, 4 x 64 bits, 32 bytes per action                    |       and dead processes)
 *  |  Process 0's counters, same layout, written by it alone       | 6080
 *  |  ... {@link #MAX_PROCESSES} blocks of {@link #COUNTERS_STRIDE} bytes                       |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The whole file, of which this record is one value, is pictured in {@link FileFormat}.
 *
 * <p>Counters are updated with atomic adds and read with volatile loads: a reader sees each counter exactly,
 * but the set of counters is not a consistent snapshot. The policy records' layout is {@link PolicyRegion};
 * the per-process counter blocks are {@link CounterRegion}. Format version 2 added the policy and counters:
 * a version-1 engine would ignore the file's policy, so it must not open a version-2 file. Version 4 moved
 * liveness to kernel locks ({@link ProcessRegistry}) and the guards to one per segment ({@link TableGuard}):
 * a version-3 engine would trust pids and a node-wide guard, so the versions must not share a file. Version 5
 * widened a window shard's count to 42 bits (byte-scale quotas) beside a newest window number: a version-4
 * engine would read the counts as window numbers. The cluster counters of line 7 came within version 5, without a
 * bump: that line was zero in every version-5 file (the record is written from a zeroed array), zero is what
 * they mean before any lease, and a version-5 engine that does not know them never reads or writes the line,
 * so sharing a file with one only leaves its leases uncounted ({@link ClusterCounterRegion}). The count of entry
 * count repairs given up (line 3, {@link #ENTRY_REPAIRS_GIVEN_UP_OFFSET}) came the same way: zero in every version-5
 * file, and an engine that does not know it leaves its own give-ups uncounted ({@link EntryTotalRepair}).
 */
public final class FileHeader
{
    /** "FLOODGT" and a zero byte, little-endian. */
    public static final long MAGIC = 0x0054474F444F4C46L;
    public static final int FORMAT_VERSION = 5;
    public static final int MAX_PROCESSES = 64;
    private static final int LINE = 64;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int SHARDS_OFFSET = 12;
    public static final int CAPACITY_OFFSET = 16;
    public static final int CREATED_WALL_MS_OFFSET = 24;
    public static final int CREATED_NANOS_OFFSET = 32;
    public static final int BOOT_ID_OFFSET = 40;
    public static final int SECRET_OFFSET = 64;
    public static final int GENERATION_COUNTER_OFFSET = 128;
    public static final int JANITOR_RUNS_OFFSET = 192;
    public static final int REAPED_OFFSET = 200;
    public static final int TOMBSTONED_OFFSET = 208;
    public static final int REVIVED_OFFSET = 216;
    public static final int ENTRY_COUNT_OFFSET = 224;
    /** Repairs of the entry count ({@link EntryTotalRepair}) that could not take every segment guard in time. */
    public static final int ENTRY_REPAIRS_GIVEN_UP_OFFSET = 232;
    public static final int TABLE_FULL_OFFSET = 256;
    public static final int DEGRADED_OFFSET = 320;
    public static final int POLICY_GENERATION_OFFSET = 384;
    /** Line 7: the node's cluster counters, laid out by {@link ClusterCounterRegion}. */
    public static final int CLUSTER_COUNTERS_OFFSET = 448;
    public static final int PROCESSES_OFFSET = 512;
    public static final int PROCESS_STRIDE = 64;
    public static final int PROCESS_OWNER = 0;
    public static final int PROCESS_PID = 8;
    public static final int PROCESS_START_MS = 16;
    public static final int PROCESS_HEARTBEAT_NANOS = 24;
    public static final int PROCESS_ATTACHED_NANOS = 32;
    public static final int PROCESS_RESUMED_NANOS = 40;
    public static final int POLICY_RECORDS_OFFSET = PROCESSES_OFFSET + MAX_PROCESSES * PROCESS_STRIDE;
    /**
     * The number of actions this format version lays out: every per-action region below is sized by it. An
     * action added to {@link Action} needs a new format version (the check at class initialisation fails).
     */
    public static final int FORMAT_ACTIONS = 5;
    public static final int POLICY_ACTION_STRIDE = 128;
    public static final int POLICY_RECORD_LENGTH = FORMAT_ACTIONS * POLICY_ACTION_STRIDE;
    public static final int RETIRED_COUNTERS_OFFSET = POLICY_RECORDS_OFFSET + 2 * POLICY_RECORD_LENGTH;
    /** One process's counters: {@link CounterRegion#COUNTERS} words per action, rounded up to cache lines. */
    public static final int COUNTERS_STRIDE =
        (FORMAT_ACTIONS * CounterRegion.COUNTERS * Long.BYTES + LINE - 1) / LINE * LINE;
    public static final int PROCESS_COUNTERS_OFFSET = RETIRED_COUNTERS_OFFSET + COUNTERS_STRIDE;
    public static final int LENGTH = PROCESS_COUNTERS_OFFSET + MAX_PROCESSES * COUNTERS_STRIDE;

    static
    {
        // the regions above are laid out for FORMAT_ACTIONS actions: one more would overlap the next region
        if (Action.values().length != FORMAT_ACTIONS || FORMAT_ACTIONS * Long.BYTES > DEGRADED_OFFSET - TABLE_FULL_OFFSET
            || FORMAT_ACTIONS * Long.BYTES > POLICY_GENERATION_OFFSET - DEGRADED_OFFSET)
        {
            throw new ExceptionInInitializerError("FileHeader lays out " + FORMAT_ACTIONS + " actions, Action has " +
                Action.values().length + ": a new action needs a new format version");
        }
    }

    private final AtomicBuffer buffer;

    /** @param buffer wraps the header value in the mapped file. */
    public FileHeader(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
    }

    /** @return the underlying buffer. */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** @return the magic number; {@link #MAGIC} for a Floodgate file. */
    public long magic()
    {
        return buffer.getLong(MAGIC_OFFSET);
    }

    /** @return the format version. */
    public int version()
    {
        return buffer.getInt(VERSION_OFFSET);
    }

    /** @return the shard count fixed when the file was created. */
    public int shards()
    {
        return buffer.getInt(SHARDS_OFFSET);
    }

    /** @return the capacity the file was created for. */
    public long capacity()
    {
        return buffer.getLong(CAPACITY_OFFSET);
    }

    /** @return the wall-clock creation time, for display only. */
    public long createdWallMs()
    {
        return buffer.getLong(CREATED_WALL_MS_OFFSET);
    }

    /** @return the boot id of the host at creation. */
    public BootId bootId()
    {
        return new BootId(buffer.getLong(BOOT_ID_OFFSET), buffer.getLong(BOOT_ID_OFFSET + 8));
    }

    /** @return the key secret, word 0. */
    public long secret0()
    {
        return buffer.getLong(SECRET_OFFSET);
    }

    /** @return the key secret, word 1. */
    public long secret1()
    {
        return buffer.getLong(SECRET_OFFSET + 8);
    }

    /** @return a generation never handed out before in this file. */
    public long nextGeneration()
    {
        return buffer.getAndAddLong(GENERATION_COUNTER_OFFSET, 1) + 1;
    }

    /** @param offset a counter offset. @return the counter, volatile read. */
    public long counterVolatile(final int offset)
    {
        return buffer.getLongVolatile(offset);
    }

    /** @param offset a counter offset. @param delta the amount to add. */
    public void addCounter(final int offset, final long delta)
    {
        buffer.getAndAddLong(offset, delta);
    }

    /** @param action an action. @return the offset of its table-full counter. */
    public static int tableFullOffset(final Action action)
    {
        return TABLE_FULL_OFFSET + 8 * action.ordinal();
    }

    /** @param action an action. @return the offset of its degraded-check counter. */
    public static int degradedOffset(final Action action)
    {
        return DEGRADED_OFFSET + 8 * action.ordinal();
    }

    /** @param slot a process slot. @return the slot's offset. */
    public static int processOffset(final int slot)
    {
        return PROCESSES_OFFSET + slot * PROCESS_STRIDE;
    }

    static void initialise(
        final AtomicBuffer buffer,
        final int shards,
        final long capacity,
        final BootId bootId,
        final long secret0,
        final long secret1,
        final long nowNanos)
    {
        buffer.putLong(MAGIC_OFFSET, MAGIC);
        buffer.putInt(VERSION_OFFSET, FORMAT_VERSION);
        buffer.putInt(SHARDS_OFFSET, shards);
        buffer.putLong(CAPACITY_OFFSET, capacity);
        buffer.putLong(CREATED_WALL_MS_OFFSET, System.currentTimeMillis());
        buffer.putLong(CREATED_NANOS_OFFSET, nowNanos);
        buffer.putLong(BOOT_ID_OFFSET, bootId.high());
        buffer.putLong(BOOT_ID_OFFSET + 8, bootId.low());
        buffer.putLong(SECRET_OFFSET, secret0);
        buffer.putLong(SECRET_OFFSET + 8, secret1);
    }
}
