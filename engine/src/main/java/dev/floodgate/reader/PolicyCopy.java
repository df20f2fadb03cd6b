package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.PolicyRegion;

import java.util.EnumMap;
import java.util.Map;

/**
 * The file's policy as its {@link FloodgateReader} last copied it from the {@link PolicyRegion}: copied again only
 * when the policy generation has moved, so that reading each entry's state under the policy costs one volatile load
 * while the policy stays as it was. Each copy is whole, of one generation (the region's double read). Not
 * thread-safe, as its reader.
 */
final class PolicyCopy
{
    private static final int ACTIONS = Action.values().length;

    private final PolicyRegion region;
    private PolicyRegion.Block[] blocks = new PolicyRegion.Block[ACTIONS];
    private long generation = -1;

    PolicyCopy(final FileHeader header)
    {
        this.region = new PolicyRegion(header, ACTIONS);
    }

    /** @return per action ordinal, the current generation's block; null for an action it has none of. */
    PolicyRegion.Block[] blocks()
    {
        if (region.generationAcquire() != generation)
        {
            final PolicyRegion.Block[] fresh = new PolicyRegion.Block[ACTIONS];
            generation = region.read(fresh);
            blocks = fresh;
        }
        return blocks;
    }

    /** @return the current generation as the API's value (0: none published yet). */
    FloodgatePolicy policy()
    {
        final PolicyRegion.Block[] current = blocks();
        final Map<Action, FloodgatePolicy.Rule> rules = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            final PolicyRegion.Block b = current[action.ordinal()];
            rules.put(action, b == null ? new FloodgatePolicy.Rule(0, 0, FloodgatePolicy.Mode.ENFORCE) :
                new FloodgatePolicy.Rule(b.limit(), b.windowMs(), b.shadow() ? FloodgatePolicy.Mode.SHADOW :
                FloodgatePolicy.Mode.ENFORCE));
        }
        return new FloodgatePolicy(generation, rules);
    }
}
