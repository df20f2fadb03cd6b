package dev.floodgate.store;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The node's cluster-quota counters (issue 12) in line 7 of the file's record: every JVM mapping the file adds
 * what it counted since its last flush (atomic adds, from its clock thread every heartbeat and once on close),
 * so a reader that is not connected to Redis, such as {@code floodgate stats}, sees the node's totals. A JVM
 * killed between two heartbeats loses its last 100 ms of counts; nothing is counted twice. Read with volatile
 * loads and no lock: each counter is exact, the set is not a snapshot.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |  Round trips (64): commands sent to Redis (EVALSHA, EVAL)     | 448
 *  |  Tokens leased (64): granted by leases applied (not replays)  | 456
 *  |  Tokens refunded (64): given back by refunds applied          | 464
 *  |  Unavailable (64): lease or refund calls with no answer       | 472
 *  |  Refused (64): checks the cluster refused (bucket drained)     | 480
 *  |  Fallbacks refused (64): checks refused for want of a lease   | 488
 *  |  Fallbacks local (64): checks admitted on the node's quota    | 496
 *  |                         alone for want of a lease             |
 *  |  Reserved (64): zero                                          | 504
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Totals over every action: the file has no room per action without a new format version (the process's
 * meters have them per action). No format bump: see {@link FileHeader}. A cluster refusal and a fallback
 * refusal are also counted as refusals of their action in {@link CounterRegion} (a check refused is refused,
 * whoever refused it), so the node's own refusals are {@code refused - cluster refused - fallbacks refused}.
 */
public final class ClusterCounterRegion
{
    public static final int ROUND_TRIPS = 0;
    public static final int TOKENS_LEASED = 1;
    public static final int TOKENS_REFUNDED = 2;
    public static final int UNAVAILABLE = 3;
    public static final int REFUSED = 4;
    public static final int FALLBACKS_REFUSED = 5;
    public static final int FALLBACKS_LOCAL = 6;
    public static final int COUNTERS = 7;

    static
    {
        if (FileHeader.CLUSTER_COUNTERS_OFFSET + (COUNTERS + 1) * Long.BYTES > FileHeader.PROCESSES_OFFSET ||
            FileHeader.CLUSTER_COUNTERS_OFFSET < FileHeader.POLICY_GENERATION_OFFSET + 64)
        {
            throw new ExceptionInInitializerError("the cluster counters must fit line 7 of the file's record");
        }
    }

    private final AtomicBuffer buffer;

    /** @param header the file's record. */
    public ClusterCounterRegion(final FileHeader header)
    {
        this.buffer = header.buffer();
    }

    /** @param counter a counter. @param delta what this JVM counted since its last flush; 0 writes nothing. */
    public void add(final int counter, final long delta)
    {
        if (delta != 0)
        {
            buffer.getAndAddLong(offset(counter), delta);
        }
    }

    /** @param counter a counter. @return the node's total, volatile load. */
    public long totalVolatile(final int counter)
    {
        return buffer.getLongVolatile(offset(counter));
    }

    private static int offset(final int counter)
    {
        if (counter < 0 || counter >= COUNTERS)
        {
            throw new IllegalArgumentException("counter " + counter);
        }
        return FileHeader.CLUSTER_COUNTERS_OFFSET + counter * Long.BYTES;
    }
}
