package dev.floodgate.door;

import dev.floodgate.Floodgate;
import dev.floodgate.ManualTicker;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.EntryBytes;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.ShardWords;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue finding 5: a check that resolved an entry and resumes after the janitor tombstoned it, reaped it and
 * the memory went to a new entry writes nothing there, on any path. A byte array stands in for the entry's
 * memory; its reuse is a new generation and new contents.
 */
class EntryReuseTest
{
    private static final int SHARDS = 4;
    private static final long GENERATION = 7;
    private static final long NOW = 3_600_000_000_000L;

    private final byte[] memory = new byte[EntryLayout.valueLength(Entry.KIND_WINDOW, SHARDS)];
    private final UnsafeBuffer bytes = new UnsafeBuffer(memory);
    private final Entry entry = new Entry(bytes);
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[FileHeader.LENGTH]);
    private final PolicyRegion policy = new PolicyRegion(new FileHeader(header), 1);
    private final ActionRule rule = new ActionRule(new PolicyRegion.Block(8, 1_000, false, 1, 0, 0, 8, 1_000, 0, 0),
        SHARDS);

    private void publishPolicy()
    {
        policy.publishRelease(new PolicyRegion.Block[] {new PolicyRegion.Block(8, 1_000, false, 1, 0, 0, 8, 1_000,
            0, 0)}, 1);
    }

    /** Tombstone, reap, and a new bucket entry in the same memory: zeros past its 128 bytes, as freed space is. */
    private void reclaimAndReuse()
    {
        entry.tombstoneVolatile(NOW, entry.stateSumVolatile());
        java.util.Arrays.fill(memory, (byte)0);
        entry.publishGenerationVolatile(9);
        EntryBytes.putKind(bytes, Entry.KIND_BUCKET);
        BucketWords.putTatVolatile(entry, 12_345);
    }

    @Test
    void shouldWriteNothingWhenAWindowClaimResumesOnReusedMemory()
    {
        publishPolicy();
        entry.publishGenerationVolatile(GENERATION);
        final long number = rule.cursor(NOW / 1_000_000).number();
        assertEquals(WindowClaim.ADMITTED, WindowClaim.claim(entry, GENERATION, policy, 1, rule, number, 1, null,
            false), "the premise: the entry takes a claim while live");
        reclaimAndReuse();
        final byte[] before = memory.clone();
        assertEquals(WindowClaim.STALE_ENTRY, WindowClaim.claim(entry, GENERATION, policy, 1, rule, number, 1, null,
            false));
        assertEquals(WindowClaim.STALE_ENTRY, WindowClaim.claim(entry, GENERATION, policy, 1, rule, number, 3,
            new long[SHARDS], false));
        assertArrayEquals(before, memory, "not a byte of the new entry, nor past its value");
    }

    @Test
    void shouldWriteNothingWhenATombstonedEntrysClaimResumes()
    {
        publishPolicy();
        entry.publishGenerationVolatile(GENERATION);
        final long number = rule.cursor(NOW / 1_000_000).number();
        entry.tombstoneVolatile(NOW, entry.stateSumVolatile());
        assertEquals(WindowClaim.STALE_ENTRY, WindowClaim.claim(entry, GENERATION, policy, 1, rule, number, 1, null,
            false));
        assertEquals(entry.tombstoneStateSum(), entry.stateSumVolatile(),
            "the janitor finds the state it recorded and may reap");
    }

    @Test
    void shouldWriteNothingWhenAGiveBackResumesOnReusedMemory()
    {
        entry.publishGenerationVolatile(GENERATION);
        final int shard = 1;
        final long receipt = ShardedWindow.tryClaim(entry, 2, 40, rule.previous, rule.current, shard, GENERATION);
        assertEquals(2, ShardedWindow.used(receipt));
        reclaimAndReuse();
        // the new owner's bytes happen to look like the claim
        ShardWords.putWordVolatile(entry, shard, ShardedWindow.word(40, 2));
        final byte[] before = memory.clone();
        assertFalse(ShardedWindow.giveBack(entry, shard, receipt, 40, GENERATION));
        assertArrayEquals(before, memory);
    }

    @Test
    void shouldWriteNothingWhenARefusalCountResumesOnReusedMemory()
    {
        entry.publishGenerationVolatile(GENERATION);
        assertTrue(BlockedCounter.addRefusal(entry, GENERATION, 2, NOW + 5_000_000_000L), "the premise: counted while live");
        assertEquals(1, ShardWords.blockedCountVolatile(entry));
        reclaimAndReuse();
        final byte[] before = memory.clone();
        assertFalse(BlockedCounter.addRefusal(entry, GENERATION, 2, NOW + 10_000_000_000L));
        assertArrayEquals(before, memory, "neither the count nor the touch time");
    }

    @Test
    void shouldWriteNothingWhenABucketCheckOrGiveBackResumesOnReusedMemory()
    {
        final TokenBucket bucket = new TokenBucket(10, 1_000);
        entry.publishGenerationVolatile(GENERATION);
        BucketWords.putTatVolatile(entry, bucket.fullWord(NOW));
        final ManualTicker ticker = new ManualTicker(NOW);
        final long start = BucketGiveBack.claimStart(bucket, entry, ticker, 1, GENERATION);
        assertNotEquals(BucketGiveBack.NOT_CLAIMED, start);
        reclaimAndReuse();
        final byte[] before = memory.clone();
        assertEquals(TokenBucket.STALE, bucket.tryAcquire(entry, ticker, 1, GENERATION));
        assertEquals(BucketGiveBack.NOT_CLAIMED, BucketGiveBack.claimStart(bucket, entry, ticker, 1, GENERATION));
        assertEquals(TokenBucket.STALE, BucketGiveBack.refusal(bucket, entry, ticker, 1, GENERATION));
        BucketGiveBack.giveBack(bucket, entry, ticker, 1, GENERATION, start);
        assertArrayEquals(before, memory);
    }
}
