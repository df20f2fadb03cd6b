package dev.floodgate;

import dev.floodgate.door.PolicyPlanner;
import dev.floodgate.door.PolicySnapshot;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;

import java.util.EnumMap;
import java.util.Map;

/**
 * The node's policy on the file's side: publishing a configuration's limits, windows and modes under the
 * policy guard, adopting the file's at open, and reading it back as a {@link FloodgatePolicy}. Stateless.
 */
final class PolicyPublisher
{
    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private PolicyPublisher()
    {
    }

    /**
     * Read before the file is mapped: a malformed value refused after mapping left a new table behind, with no
     * policy (found by review).
     *
     * @return true when {@code FLOODGATE_POLICY=publish} ({@code floodgate.policy=publish}) asks an opening JVM
     * to publish its configuration; false for {@code adopt} or unset.
     * @throws IllegalArgumentException naming the value when it is neither.
     */
    static boolean publishAsked()
    {
        return publishAsked(System.getProperty(Floodgate.POLICY_PROPERTY), System.getenv(Floodgate.POLICY_ENV));
    }

    /**
     * @param property the system property's value, which wins when set (blank included, as for every key).
     * @param env      the environment variable's value.
     * @return as {@link #publishAsked()}.
     * @throws IllegalArgumentException naming the value and where it came from, the property or the variable: an
     * operator who set {@code FLOODGATE_POLICY} was told of {@code floodgate.policy}, which they never set.
     */
    static boolean publishAsked(final String property, final String env)
    {
        final String wanted = property != null ? property : env;
        final boolean publish = wanted != null && wanted.trim().equalsIgnoreCase("publish");
        if (wanted != null && !wanted.isBlank() && !publish && !wanted.trim().equalsIgnoreCase("adopt"))
        {
            final String source = property != null ? Floodgate.POLICY_PROPERTY : Floodgate.POLICY_ENV;
            throw new IllegalArgumentException(source + "='" + wanted + "': expected publish or adopt");
        }
        return publish;
    }

    /**
     * Publishes the file's first policy, or this configuration's when {@code publish} ({@link #publishAsked});
     * otherwise adopts the file's and logs each key where this JVM's configuration differs.
     */
    static void publishOrAdopt(final QuotaTable table, final FloodgateConfig config, final boolean publish)
    {
        final PolicyRegion region = new PolicyRegion(table.header(), Action.values().length);
        // A file that has a policy is adopted without the guard, read as checks read it: a stopped holder of the
        // guard (Ctrl-Z on `policy set`) made every broker's (re)start fail after 2 s (found by review). Only a
        // publisher, or the first JVM on a new file, needs the guard.
        final long published = publish || region.generationAcquire() == 0 ?
            publish(table, config, config.ticker(), !publish) : 0;
        if (published > 0)
        {
            if (published > 1)
            {
                LOG.log(System.Logger.Level.INFO, "{0}: published this JVM''s policy as generation {1}",
                    table.file(), published);
            }
            return;
        }
        final PolicyRegion.Block[] blocks = new PolicyRegion.Block[Action.values().length];
        final long generation = region.read(blocks);
        final FloodgatePolicy file = toPolicy(generation, blocks);
        for (final String difference : FloodgatePolicy.of(config).differences(file))
        {
            LOG.log(System.Logger.Level.WARNING, "{0}: adopting the file''s policy (generation {1}); this JVM''s " +
                "configuration differs (this JVM -> file): {2} (set {3}=publish to publish it)", table.file(), generation, difference,
                Floodgate.POLICY_ENV);
        }
    }

    /**
     * Publishes under the policy guard, so publishers serialise (and of two JVMs opening a new file together,
     * exactly one publishes first; the other adopts).
     *
     * @param onlyIfNone publish only when the file has no policy yet.
     * @return the new generation, or 0 when {@code onlyIfNone} and the file has a policy.
     */
    static long publish(final QuotaTable table, final FloodgateConfig config, final Ticker ticker,
        final boolean onlyIfNone)
    {
        final int actions = Action.values().length;
        final PolicyRegion region = new PolicyRegion(table.header(), actions);
        if (!table.acquirePolicyGuard(QuotaTable.TOOL_TIMEOUT_NANOS))
        {
            throw new TableBusyException(table.file() + ": another live process held the " +
                "policy guard for " + QuotaTable.TOOL_TIMEOUT_NANOS / 1_000_000 + " ms; the policy was not published");
        }
        try
        {
            final PolicyRegion.Block[] old = new PolicyRegion.Block[actions];
            final long generation = region.read(old);
            if (onlyIfNone && generation != 0)
            {
                return 0;
            }
            final long next = generation + 1;
            // the actions whose window regime changes are marked before their entered words are read (and before
            // the clock): a check announcing a window meanwhile sees the mark and waits for the flip (RegimeEntry)
            final boolean[] changing = new boolean[actions];
            for (final Action action : Action.values())
            {
                final FloodgateConfig.Limit limit = config.limit(action);
                final PolicyRegion.Block before = generation == 0 ? null : old[action.ordinal()];
                changing[action.ordinal()] = before != null &&
                    (before.limit() != limit.limit() || before.windowMs() != limit.windowMs());
            }
            try
            {
                for (int a = 0; a < actions; a++)
                {
                    if (changing[a])
                    {
                        region.markPublishingVolatile(a, table.owner());
                    }
                }
                final long nowMs = Math.floorDiv(ticker.nanos(), 1_000_000L);
                final PolicyRegion.Block[] blocks = new PolicyRegion.Block[actions];
                for (final Action action : Action.values())
                {
                    final FloodgateConfig.Limit limit = config.limit(action);
                    final PolicyRegion.Block before = generation == 0 ? null : old[action.ordinal()];
                    blocks[action.ordinal()] = PolicyPlanner.plan(before, limit.limit(), limit.windowMs(),
                        config.shadow(action), next, nowMs, region.enteredVolatile(action.ordinal()));
                }
                region.publishRelease(blocks, next);
                return next;
            }
            finally
            {
                for (int a = 0; a < actions; a++)
                {
                    if (changing[a])
                    {
                        region.clearPublishing(a);
                    }
                }
            }
        }
        finally
        {
            table.releasePolicyGuard();
        }
    }

    static FloodgatePolicy toPolicy(final PolicySnapshot snapshot)
    {
        final PolicyRegion.Block[] blocks = new PolicyRegion.Block[Action.values().length];
        for (final Action action : Action.values())
        {
            blocks[action.ordinal()] = snapshot.block(action);
        }
        return toPolicy(snapshot.generation(), blocks);
    }

    static FloodgatePolicy toPolicy(final long generation, final PolicyRegion.Block[] blocks)
    {
        final Map<Action, FloodgatePolicy.Rule> rules = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            final PolicyRegion.Block b = blocks[action.ordinal()];
            rules.put(action, new FloodgatePolicy.Rule(b.limit(), b.windowMs(),
                b.shadow() ? FloodgatePolicy.Mode.SHADOW : FloodgatePolicy.Mode.ENFORCE));
        }
        return new FloodgatePolicy(generation, rules);
    }
}
