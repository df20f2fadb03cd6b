package dev.floodgate.store;

/**
 * The file as one picture: a Chronicle Map 2026.1 file whose spare words Floodgate uses for its guards, whose
 * reserved all-zero key holds the file's own record ({@link FileHeader}) and whose other values are quota
 * entries ({@link EntryLayout}). Each region's own class gives its detail; this is where they sit. Offsets named in
 * brackets are the constants the code uses.
 *
 * <pre>
 *  offset              region                                                       owner
 *  ------------------  -----------------------------------------------------------  ----------------------
 *  0                   Chronicle's self-bootstrapping header: xxHash64 (64) | size  Chronicle; validated by
 *                      word (32) | the map's configuration as YAML text             FileCheck, ChronicleLayout
 *  H                   Chronicle's global mutable state (lock, tier bulks, segment  Chronicle
 *                      headers offset S, data store size); H = the text's end
 *                      rounded up to 64
 *  S - GUARD_LINE      Floodgate's guard line [GuardRegion.LENGTH = 64]:            GuardRegion
 *                      allocation guard | policy guard | repairs | last dead
 *                      owner | timeouts | tier counts repaired | diverged |
 *                      paired lock file. Space Chronicle reserves for its global
 *                      state and leaves unused
 *  S                   segment headers (page aligned), segmentHeaderSize each:      Chronicle, then
 *                        +0  Chronicle: lock, entries, lowest free chunk, next      GuardRegion
 *                            tier, deleted (its first 32 bytes)
 *                        +SEGMENT_GUARD   Floodgate's segment guard: owner word
 *                                         [GuardRegion.SEGMENT_GUARD_OFFSET = 32]
 *                        +SEGMENT_COUNT   Floodgate's entries in the segment
 *                                         [GuardRegion.SEGMENT_ENTRIES_OFFSET = 40]
 *  M                   one tier per segment, then extra tier bulks; a tier is: hash Chronicle
 *                      lookup | tier counters (64) | free list | entry space of
 *                      64-byte chunks [ChronicleLayout.CHUNK]
 *                      an entry: key (KEY_LENGTH = 16, no size prefix) | value     KeyHasher, Chronicle
 *                      size (stop bit) | padding to 64 [ALIGNMENT] | value
 *
 *  the value of key 0 (16 zero bytes), inserted at creation, never removed:            FileHeader
 *    0      identity: magic, format version, shards, capacity, created, boot id, secret (lines 0-1)
 *    128    generation counter [GENERATION_COUNTER_OFFSET]
 *    192    janitor runs | reaped | tombstoned | revived | entry count | entry count repairs given up
 *           [JANITOR_RUNS_OFFSET]
 *    256    table-full events per action [TABLE_FULL_OFFSET]; 320 degraded checks per action
 *    384    policy generation [POLICY_GENERATION_OFFSET]
 *    448    the node's cluster counters (issue 12) [CLUSTER_COUNTERS_OFFSET]             ClusterCounterRegion
 *    512    process slots: MAX_PROCESSES x PROCESS_STRIDE (64 x 64) [PROCESSES_OFFSET]    ProcessRegistry
 *    4608   policy records 0 and 1: each FORMAT_ACTIONS x POLICY_ACTION_STRIDE (5 x 128)  PolicyRegion
 *           [POLICY_RECORDS_OFFSET, POLICY_RECORD_LENGTH]
 *    5888   retired counters, then MAX_PROCESSES blocks, COUNTERS_STRIDE (192) each       CounterRegion
 *           [RETIRED_COUNTERS_OFFSET, PROCESS_COUNTERS_OFFSET]
 *    LENGTH = PROCESS_COUNTERS_OFFSET + MAX_PROCESSES x COUNTERS_STRIDE (18368)
 *
 *  the value of a quota key (last key byte = kind 1 bucket, 2 window, 3 blocked, 4 lease): EntryLayout
 *    0      line 0: generation, kind, action, units, created, touched, state (the check's words)
 *    64     line 1: tombstone time, identifier length, label
 *    128    [SHARDS_OFFSET] one 64-byte line per shard (windows and blocked counters only)
 * </pre>
 *
 * The strides that depend on the number of actions are derived from {@link FileHeader#FORMAT_ACTIONS}, which
 * {@code FileHeader} checks against {@code Action} when it is loaded. Not instantiable.
 */
public final class FileFormat
{
    /** The guard line sits this many bytes before the segment headers. */
    public static final int GUARD_LINE = GuardRegion.LENGTH;
    /** Floodgate's segment guard, within a segment header. */
    public static final int SEGMENT_GUARD = GuardRegion.SEGMENT_GUARD_OFFSET;
    /** Floodgate's entry count, within a segment header. */
    public static final int SEGMENT_COUNT = GuardRegion.SEGMENT_ENTRIES_OFFSET;
    /** The key that holds the file's record: all zero. */
    public static final int RECORD_KEY_LENGTH = KeyHasher.KEY_LENGTH;
    /** The file's record, in bytes. */
    public static final int RECORD_LENGTH = FileHeader.LENGTH;
    /** A bucket's value; windows and blocked counters add one line per shard. */
    public static final int ENTRY_HEADER_LENGTH = EntryLayout.HEADER_LENGTH;

    private FileFormat()
    {
    }
}
