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
        final PolicyRegion.Block first = PolicyPlanner.plan(null, 10, 1_000, false, 1, -5_250, false);
        final PolicyRegion.Block next = PolicyPlanner.plan(first, 4, 1_000, false, 2, -5_250, false);
        assertEquals(-5_000, next.epochMs(), "the end of the window in force, not the first block's epoch 0");
        assertEquals(10, next.prevLimit());
        final long lastOld = new WindowRegime(10, 1_000, 0, 0, 1).number(-5_001);
        assertEquals(lastOld + PolicyPlanner.NUMBER_JUMP, next.base());
    }

    @Test
    void shouldNumberEachReplacementOfAPendingRegimePastTheOneItReplaces()
    {
        PolicyRegion.Block block = PolicyPlanner.plan(null, 10, 1_000, false, 1, 500, false);
        block = PolicyPlanner.plan(block, 20, 1_000, false, 2, 500, false);
        final long pendingBase = block.base();
        block = PolicyPlanner.plan(block, 30, 1_000, false, 3, 600, false);
        assertEquals(1_000, block.epochMs());
        assertEquals(pendingBase + PolicyPlanner.NUMBER_JUMP, block.base());
        assertEquals(10, block.prevLimit(), "the regime in force is kept");
        block = PolicyPlanner.plan(block, 30, 1_000, true, 4, 700, false);
        assertEquals(3, block.version(), "a mode change is not a units change");
        assertTrue(block.shadow());
    }
}
