package dev.floodgate;

import dev.floodgate.door.PolicyPlanner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A check records its entry into a regime (door.RegimeEntry) unless the regime is the first block's, which
 * ActionRule tells by base 0 at epoch 0. With negative monotonic clocks (ModelCheckTest uses them) a later regime can land on base 0 and epoch
 * 0 exactly: 10 per 1 ms published at -4194301 ms gives a regime of 2 ms windows from -4194300 with base
 * -4194301 + 2^20; a publish at -2 ms then starts the next regime at epoch (-4194300 + 2097150 x 2) = 0 with base
 * -2^20 + 2^20 = 0. Checks in it never record the entry, so a publisher a tick behind (-1 ms) replaces it as
 * pending, and the replacement counts the window [0, 1000) afresh: 3 + 4 in a window whose limits were 3, then 4,
 * the very over-admission the entered word was added for (found by review). The planner now never gives a later
 * regime base 0 at epoch 0.
 */
@Timeout(60)
class RegimeEntryEternalLookalikeTest
{
    private static final long MS = 1_000_000L;
    private static final long J = PolicyPlanner.NUMBER_JUMP;
    /** A window number of the first (1 ms) regime chosen so the third regime lands on epoch 0, base 0. */
    private static final long N0 = -(4 * J - 3);

    @TempDir
    Path dir;

    private final ManualTicker publisherTime = new ManualTicker(N0 * MS);
    private final ManualTicker checkerTime = new ManualTicker(N0 * MS);
    private final List<Floodgate> gates = new ArrayList<>();

    @AfterEach
    void close()
    {
        gates.forEach(Floodgate::close);
    }

    private FloodgateConfig config(final ManualTicker ticker, final long limit, final long windowMs)
    {
        return FloodgateConfig.builder().file(dir.resolve("lookalike.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, windowMs).build();
    }

    private Floodgate open(final ManualTicker ticker, final long limit, final long windowMs)
    {
        final Floodgate gate = Floodgate.open(config(ticker, limit, windowMs));
        gates.add(gate);
        return gate;
    }

    private static int admitted(final Floodgate gate, final int attempts)
    {
        int admitted = 0;
        for (int i = 0; i < attempts; i++)
        {
            admitted += gate.checkLimitInCaller("u", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void shouldNotReplaceAnEnteredRegimeWhoseBaseAndEpochHappenToBeZero()
    {
        final Floodgate publisher = open(publisherTime, 10, 1); // the first block: 10 per 1 ms, base 0, epoch 0
        final Floodgate checker = open(checkerTime, 10, 1);
        publisher.reconfigure(config(publisherTime, 10, 2)); // at N0: 10 per 2 ms from N0 + 1, base N0 + J
        publisherTime.set(-2 * MS);
        publisher.reconfigure(config(publisherTime, 3, 1_000)); // 3 per 1 s from epoch 0, base 0
        checkerTime.set(0);
        assertEquals(3, admitted(checker, 10), "window [0, 1000) under the limit of 3");
        publisherTime.set(-1 * MS); // a tick behind the checker
        publisher.reconfigure(config(publisherTime, 4, 1_000));
        assertEquals(0, admitted(checker, 10), "window [0, 1000) had its 3 already");
    }
}
