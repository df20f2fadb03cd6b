package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A bucket check (through a handle, or a charge's bucket quota) whose policy snapshot is a moment old claims on an
 * entry another JVM has already converted to newer, smaller units: {@code cost * interval} overflowed and a byte-scale
 * cost was admitted against 1 per second (found by review; both failed before). A cost above the entry's units'
 * limit now answers {@code NEVER}, as the next check on the new policy would.
 */
@Timeout(60)
class StaleUnitsOverflowTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker time = new ManualTicker(3_600_000 * MS);
    private final HookedTicker ticker = new HookedTicker(time);
    private Floodgate gate;

    @AfterEach
    void close()
    {
        if (gate != null)
        {
            gate.close();
        }
    }

    private FloodgateConfig.Builder config(final long limit, final long windowMs)
    {
        return FloodgateConfig.builder().file(dir.resolve("units.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, limit, windowMs).reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
    }

    /**
     * A check whose policy snapshot is a moment old (another JVM published 1 per second and converted the entry
     * meanwhile: here, inside the check's clock read) claims a cost its old rule allowed (16 x 10^9, a byte-scale
     * bucket of 10^9 per second) on the entry's new units. {@code cost * interval} overflows (1.6 x 10^10 x 10^9 >
     * 2^63): the check is admitted against a bucket of 1 per second that was already empty, and the TAT word is
     * moved far into the past, so the bucket reads full again.
     */
    @Test
    void shouldNeverAdmitACostAboveTheEntrysUnitsWhenTheSnapshotIsAMomentOld()
    {
        final long bytes = 16_000_000_000L; // 10^9 per second: fits the bucket (scale 1)
        gate = Floodgate.open(config(bytes, 16_000).build());
        final Quota alice = gate.quota("alice", Action.PUBLISH);
        ticker.onNextRead(() ->
        {
            gate.reconfigure(config(1, 1_000).build());
            // another JVM's check on the new policy: makes the entry in its units and takes its one token
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
        });
        final long result = alice.checkLimit(bytes);
        assertNotEquals(Floodgate.ADMITTED, result, "16 x 10^9 admitted against 1 per second");
        assertNotEquals(Floodgate.ADMITTED, alice.checkLimit(1), "the one token of this second was spent");
    }

    /** As the handle's check above, for a bucket quota of a charge (its claim keeps where its debt starts). */
    @Test
    void shouldNeverAdmitAChargeAboveTheEntrysUnitsWhenTheSnapshotIsAMomentOld()
    {
        final long bytes = 16_000_000_000L;
        gate = Floodgate.open(config(bytes, 16_000).build());
        ticker.onNextRead(() ->
        {
            gate.reconfigure(config(1, 1_000).build());
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
        });
        final long result = gate.charge(List.of(Charge.bucket("alice", Action.PUBLISH, bytes)));
        assertNotEquals(Floodgate.ADMITTED, result, "16 x 10^9 admitted against 1 per second");
        assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH), "the one token was spent");
    }
}
