package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Probes say what a check would answer now, consume nothing and create no entry; each field is compared with
 * what the door itself then answers at the same instant (an injected ticker).
 */
class ProbeTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
    private Floodgate gate;

    @BeforeEach
    void open()
    {
        gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("probe.map")).capacity(1_000).ticker(ticker)
            .limit(Action.AUTH, 4, 60_000).limit(Action.PUBLISH, 5, 1_000).build());
    }

    @AfterEach
    void close()
    {
        gate.close();
    }

    @Test
    void shouldSeeAnUnknownIdentifierAsFullWithoutCreatingIt()
    {
        assertEquals(new Probe(4, 4, 0, 0), gate.probe("10.0.0.1", Action.AUTH));
        final Probe window = gate.probeInCaller("alice", Action.PUBLISH);
        assertEquals(5, window.limit());
        assertEquals(5, window.remaining());
        assertEquals(0, window.retryAfterMs());
        assertEquals(0, gate.stats().entries(), "a probe creates no entry");
    }

    @Test
    void shouldTellTheBucketsTokensAndWhatTheNextCheckWouldAnswer()
    {
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
        }
        // 4 per minute: one token every 15 s; 3 spent, so 45 s to full
        assertEquals(new Probe(4, 1, 0, 45_000), gate.probe("10.0.0.1", Action.AUTH));
        assertEquals(new Probe(4, 1, 0, 45_000), gate.probe("10.0.0.1", Action.AUTH), "and consumed nothing");
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
        ticker.advanceMs(5_000);
        final Probe empty = gate.probe("10.0.0.1", Action.AUTH);
        assertEquals(0, empty.remaining());
        assertEquals(55_000, empty.resetMs());
        assertEquals(gate.checkLimit("10.0.0.1", Action.AUTH), empty.retryAfterMs(),
            "the retry-after a check of cost 1 answers at the same instant");
    }

    @Test
    void shouldTellTheWindowsTokensAndWhenItEnds()
    {
        ticker.advanceMs(200); // 200 ms into a 1 s window
        for (int i = 0; i < 5; i++)
        {
            assertEquals(5 - i, gate.probeInCaller("alice", Action.PUBLISH).remaining());
            assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH));
        }
        final Probe spent = gate.probeInCaller("alice", Action.PUBLISH);
        assertEquals(new Probe(5, 0, 800, 800), spent);
        assertEquals(gate.checkLimitInCaller("alice", Action.PUBLISH), spent.retryAfterMs());
        ticker.advanceMs(800);
        assertEquals(new Probe(5, 5, 0, 1_000), gate.probeInCaller("alice", Action.PUBLISH), "a new window");
    }

    @Test
    void shouldSayNothingIsLimitedWhenTheActionIsOff()
    {
        final Probe off = new Probe(0, Long.MAX_VALUE, 0, 0);
        assertEquals(off, gate.probe("bob", Action.SUBSCRIBE));
        assertEquals(off, gate.probeInCaller("bob", Action.SUBSCRIBE));
        assertThrows(IllegalArgumentException.class, () -> gate.probe("", Action.AUTH));
        gate.close();
        assertThrows(IllegalStateException.class, () -> gate.probe("bob", Action.AUTH));
    }
}
