package dev.floodgate.door;

import dev.floodgate.store.PolicyRegion;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PolicyPlannerTest
{
    @Test
    void shouldStartAChangeAtTheNextBoundaryAtNegativeMonotonicTimeToo()
    {
        final PolicyRegion.Block first = PolicyPlanner.plan(null, 10, 1_000, false, 1, -5_250, Long.MIN_VALUE);
        final PolicyRegion.Block next = PolicyPlanner.plan(first, 4, 1_000, false, 2, -5_250, Long.MIN_VALUE);
        assertEquals(-5_000, next.epochMs(), "the end of the window in force, not the first block's epoch 0");
        assertEquals(10, next.prevLimit());
        final long lastOld = new WindowRegime(10, 1_000, 0, 0, 1).number(-5_001);
        assertEquals(lastOld + PolicyPlanner.NUMBER_JUMP, next.base());
    }

    @Test
    void shouldNumberEachReplacementOfAPendingRegimePastTheOneItReplaces()
    {
        PolicyRegion.Block block = PolicyPlanner.plan(null, 10, 1_000, false, 1, 500, Long.MIN_VALUE);
        block = PolicyPlanner.plan(block, 20, 1_000, false, 2, 500, Long.MIN_VALUE);
        final long pendingBase = block.base();
        block = PolicyPlanner.plan(block, 30, 1_000, false, 3, 600, Long.MIN_VALUE);
        assertEquals(1_000, block.epochMs());
        assertEquals(pendingBase + PolicyPlanner.NUMBER_JUMP, block.base());
        assertEquals(10, block.prevLimit(), "the regime in force is kept");
        block = PolicyPlanner.plan(block, 30, 1_000, true, 4, 700, Long.MIN_VALUE);
        assertEquals(3, block.version(), "a mode change is not a units change");
        assertTrue(block.shadow());
    }

    @Test
    void shouldStartAfterTheLastWindowAnnouncedWhenItIsAheadOfThePublishersClock()
    {
        final PolicyRegion.Block first = PolicyPlanner.plan(null, 10, 1_000, false, 1, 500, Long.MIN_VALUE);
        final WindowRegime regime = new WindowRegime(10, 1_000, 0, 0, 1);
        // the publisher reads 999; a check announced the window [1000, 2000) (or [3000, 4000))
        assertEquals(2_000, PolicyPlanner.plan(first, 4, 1_000, false, 2, 999, regime.number(1_000)).epochMs());
        assertEquals(4_000, PolicyPlanner.plan(first, 4, 1_000, false, 2, 999, regime.number(3_000)).epochMs());
        assertEquals(1_000, PolicyPlanner.plan(first, 4, 1_000, false, 2, 999, regime.number(0)).epochMs(),
            "a window behind the publisher's clock changes nothing");

        // a pending regime a check announced a window of is in force: it is not replaced, and the next starts after
        final PolicyRegion.Block pending = PolicyPlanner.plan(first, 4, 1_000, false, 2, 999, Long.MIN_VALUE);
        final WindowRegime four = new WindowRegime(4, 1_000, pending.epochMs(), pending.base(), 1);
        final PolicyRegion.Block after = PolicyPlanner.plan(pending, 3, 1_000, false, 3, 999, four.number(1_000));
        assertEquals(4, after.prevLimit());
        assertEquals(2_000, after.epochMs());
        // an announcement of an older regime's window says nothing of the pending one: it is replaced
        final PolicyRegion.Block replaced = PolicyPlanner.plan(pending, 3, 1_000, false, 3, 999, regime.number(999));
        assertEquals(10, replaced.prevLimit());
        assertEquals(1_000, replaced.epochMs());
    }
}
