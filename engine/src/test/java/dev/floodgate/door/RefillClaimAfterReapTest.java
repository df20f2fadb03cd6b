package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LeaseRefill#claimRefill} tested the entry's generation, then, when the refill word is
 * at least a check's wait old, asks {@code holders.alive().test(holder)} (in production the process registry's
 * kernel-lock probe: a system call, allocation, a safepoint) and only then compare-and-sets the refill word. That is
 * a call between the generation test and the write (found by an audit of every shared-memory write), which NOTES.md ("Reclamation", rule 7) and {@link Entry}'s
 * Javadoc forbid: a fetcher held in the probe while the janitor tombstones and reaps the lease entry and another
 * key's lease entry reuses the memory lands its compare-and-set in that key's refill word whenever it holds the word
 * the stale fetcher loaded (a refill claim names a registry slot and a ms; a dead process's slot is handed to the
 * next process, so the same slot claiming another key in the same ms gives the same word bit for bit).
 *
 * <p>Driven deterministically: the liveness probe itself plays the janitor's reap and the reuse (the generation
 * moves, the memory is cleared and written as "bob"'s lease entry, whose refill word the new process in slot 42
 * claims at the same ms). The stale call for alice then takes bob's live fetch over: two refills in flight for
 * bob with one sequence, the loss {@code RefillClaimClockTest} describes. Failed before; the generation is now
 * tested again after the probe, with only arithmetic between it and the compare-and-set.
 */
@Timeout(60)
class RefillClaimAfterReapTest
{
    private static final long ALICE = 7;
    private static final long BOB = 8;
    private static final long TAKEOVER_NANOS = 3_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final long SINCE = 3_600_000 * MS;
    private static final long NOW = SINCE + 1_000 * MS; // 1 s: past a check's wait, within the takeover bound

    private final byte[] memory = new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)];
    private final Entry entry = new Entry(new UnsafeBuffer(memory));

    @Test
    void shouldNotClaimAReapedLeaseEntrysRefillWordFromAFetcherHeldInTheLivenessProbe()
    {
        entry.publishGenerationVolatile(ALICE);
        // alice's refill word: a fetch by the process in registry slot 42, started at SINCE; that process died
        final long aliceWord = LeaseRefill.claimRefill(entry, ALICE, SINCE, TAKEOVER_NANOS,
            new RefillHolders(42, holder -> true));
        assertNotEquals(0, aliceWord);

        final boolean[] probed = {false};
        final RefillHolders stale = new RefillHolders(77, holder ->
        {
            // the fetcher for alice passed its generation test and now probes slot 42's kernel lock; meanwhile:
            probed[0] = true;
            entry.tombstoneVolatile(NOW, entry.stateSumVolatile()); // janitor pass k
            Arrays.fill(memory, (byte)0); // pass k+1 reaps; Chronicle Map hands the memory to the next insert
            entry.publishGenerationVolatile(BOB); // bob's lease entry
            // the process that got registry slot 42 next starts bob's refill in the same ms
            final long bobClaim = LeaseRefill.claimRefill(entry, BOB, SINCE, TAKEOVER_NANOS,
                new RefillHolders(42, h -> true));
            assertEquals(aliceWord, bobClaim, "bob's refill word is bit for bit the one alice's fetcher loaded");
            return false; // alice's holder (the old process in slot 42) is dead
        });

        final long claim = LeaseRefill.claimRefill(entry, ALICE, NOW, TAKEOVER_NANOS, stale);

        assertTrue(probed[0], "the probe ran inside claimRefill");
        assertEquals(aliceWord, LeaseWords.refillVolatile(entry),
            "bob's live refill word was overwritten by a fetcher of alice's reaped entry (claim returned " + claim + ")");
        assertEquals(0, claim, "a claim on an entry whose generation changed is no claim");
    }
}
