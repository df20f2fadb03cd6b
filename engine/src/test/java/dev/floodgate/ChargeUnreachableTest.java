package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.KeyOutsideHeader;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A charge whose quota's segment another live JVM holds is refused by the unreachable rule and counted once,
 * as unreachable, like a one-action check: never also in the identifier's blocked counter (before, it was in
 * both, so a node's refusals no longer added up to blocked plus unreachable).
 */
@Timeout(180)
class ChargeUnreachableTest
{
    @TempDir
    Path dir;

    @Test
    void shouldCountAnUnreachableChargeAsUnreachableOnly() throws Exception
    {
        final Path file = dir.resolve("charge.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
        Floodgate.open(config).close();
        // its blocked counter is reachable while its window is held
        final KeyOutsideHeader held = KeyOutsideHeader.find(file, Entry.KIND_WINDOW, Action.PUBLISH, "user-",
            Entry.KIND_BLOCKED);
        final String user = held.key();
        final int segment = held.segment();
        try (Floodgate gate = Floodgate.open(config);
             ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment)))
        {
            holder.awaitLine("HELD", 120);
            assertEquals(FloodgateConfig.DEFAULT_UNREACHABLE_RETRY_AFTER_MS,
                gate.charge(List.of(Charge.window(user, Action.PUBLISH, 1))), "refused by the unreachable rule");
            assertEquals(1, gate.stats().degraded().get(Action.PUBLISH), "counted as unreachable");
            assertEquals(1, gate.checks().get(Action.PUBLISH).refused(), "and as one refused check");
            assertEquals(0, gate.blockedCount(user, Action.PUBLISH), "but not as a refusal of the user");

            // in shadow mode too, an unreachable quota refuses, as a one-action check of it does
            gate.reconfigure(FloodgateConfig.builder().file(file).capacity(1_000)
                .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).shadow(Action.PUBLISH, true).build());
            assertEquals(FloodgateConfig.DEFAULT_UNREACHABLE_RETRY_AFTER_MS,
                gate.checkLimitInCaller(user, Action.PUBLISH), "the one-action check");
            assertEquals(FloodgateConfig.DEFAULT_UNREACHABLE_RETRY_AFTER_MS,
                gate.charge(List.of(Charge.window(user, Action.PUBLISH, 1))), "and the charge answer alike");
        }
    }
}
