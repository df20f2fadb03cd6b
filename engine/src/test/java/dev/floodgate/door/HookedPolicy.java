package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.PolicyRegion;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A janitor's policy supplier for tests that stop a pass at a chosen point: every action 100 an hour on the given
 * shards, and a one-shot hook run inside the supplier's next call (the scan calls it when it judges a live window
 * entry), so a test can act while the pass stands there.
 */
final class HookedPolicy implements Supplier<PolicySnapshot>
{
    static final long HOUR_MS = 3_600_000L;

    private final PolicySnapshot policy;
    private final AtomicReference<Runnable> hook = new AtomicReference<>();

    HookedPolicy(final int shards)
    {
        final PolicyRegion.Block[] blocks = new PolicyRegion.Block[Action.values().length];
        Arrays.fill(blocks, new PolicyRegion.Block(100, HOUR_MS, false, 1, 0, 0, 100, HOUR_MS, 0, 0));
        this.policy = new PolicySnapshot(1, blocks, shards);
    }

    /** @param action run once, inside the next {@link #get}. */
    void onNextCall(final Runnable action)
    {
        hook.set(action);
    }

    /** @return the policy, without running the hook. */
    PolicySnapshot policy()
    {
        return policy;
    }

    @Override
    public PolicySnapshot get()
    {
        final Runnable once = hook.getAndSet(null);
        if (once != null)
        {
            once.run();
        }
        return policy;
    }
}
