package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Probe;
import dev.floodgate.TableBusyException;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.Resolved;
import dev.floodgate.store.ShardWords;

/**
 * Probes: what the bucket or the window door would answer now, consuming nothing and creating no entry. The
 * state comes from the table ({@code EntryLookup.peek}: the entry read in place without a lock, or a copy under
 * its read lock; words read in place count only when the generation is unchanged after them, else the probe
 * looks again) and is read with the readers' arithmetic ({@link EntryArithmetic}), which is the doors' own,
 * including a bucket's conversion to newer units. An entry that cannot be reached in time answers as the
 * action's unreachable rule would answer a check, and so does an entry whose generation moved under each of
 * {@link Doors#ATTEMPTS} reads (a check gives up the same way). Stateless; thread-safe; allocates (not a hot path).
 */
public final class Probes
{
    private static final long NANOS_PER_MS = 1_000_000L;

    private Probes()
    {
    }

    /**
     * @param doors      the doors of the table.
     * @param identifier who.
     * @param action     what.
     * @return the bucket door's answer now; {@code Probe(0, Long.MAX_VALUE, 0, 0)} when the action is off (but for
     * this JVM's cluster quota: {@link ClusterOnly}).
     */
    public static Probe bucket(final Doors doors, final CharSequence identifier, final Action action)
    {
        return shadowed(doors, action, clustered(doors, identifier, action, nodeBucket(doors, identifier, action)));
    }

    /** As {@link #window}, then the cluster's part. */
    public static Probe window(final Doors doors, final CharSequence identifier, final Action action)
    {
        return shadowed(doors, action, clustered(doors, identifier, action, nodeWindow(doors, identifier, action)));
    }

    /**
     * In shadow mode a check is admitted whatever the state (its refusal is only counted), so the retry-after of a
     * check of cost 1 is 0; the tokens left still say the state. A probe said the refusal's wait, and a broker
     * setting Retry-After from it told clients to back off during a dry run (found by review).
     */
    private static Probe shadowed(final Doors doors, final Action action, final Probe probe)
    {
        return doors.policy().rule(action).shadow && probe.retryAfterMs() != 0 ?
            new Probe(probe.limit(), probe.remaining(), 0, probe.resetMs()) : probe;
    }

    /**
     * @return the node's probe, narrowed by the cluster's part when the action has a cluster quota
     * ({@link ClusterProbe}); when the node's quota is off and the cluster's stays in force, the cluster's alone, as
     * such a check is ({@link ClusterOnly}).
     */
    private static Probe clustered(final Doors doors, final CharSequence identifier, final Action action,
        final Probe node)
    {
        if (ClusterOnly.offUnderCluster(doors, action, node))
        {
            return ClusterProbe.narrow(doors, identifier, action, ClusterOnly.node(doors, action));
        }
        return doors.clustered(action) && node.limit() != 0 ? ClusterProbe.narrow(doors, identifier, action, node) :
            node;
    }

    private static Probe nodeBucket(final Doors doors, final CharSequence identifier, final Action action)
    {
        final PolicySnapshot policy = doors.policy();
        final ActionRule rule = policy.rule(action);
        if (rule.limit == 0)
        {
            return off();
        }
        rule.bucket(action); // a window-only quota has no bucket to probe: say so, as a check would
        Resolved found = null;
        long tat = 0;
        long limit = 0;
        long windowMs = 0;
        for (int attempt = 0; ; attempt++)
        {
            if (attempt == Doors.ATTEMPTS)
            {
                return unreachable(doors, action, rule.limit); // moved under every read: as a check answers
            }
            try
            {
                found = doors.table().lookup().peek(Entry.KIND_BUCKET, action, identifier);
            }
            catch (final TableBusyException ex)
            {
                return unreachable(doors, action, rule.limit);
            }
            if (found == null)
            {
                break;
            }
            tat = BucketWords.tatVolatile(found.entry());
            limit = found.limit();
            windowMs = found.windowMs();
            // a conversion holds the word (a killed one until the next check): the side record is the truth, the
            // word and units that check puts back before it converts (BucketConversion), at the old version
            final BucketWords.Recorded recorded = tat != TokenBucket.FROZEN ? null :
                BucketWords.recordedVolatile(found.entry(), (int)found.version());
            if (recorded != null)
            {
                tat = recorded.tat();
                limit = recorded.limit();
                windowMs = recorded.windowMs();
            }
            // the words read in place: still this entry's, in these units, only if the generation still says so
            if ((tat != TokenBucket.FROZEN || recorded != null) && found.entry().isCurrentAcquire(found.generation()))
            {
                break;
            }
            found = null; // converted or reaped under the read: look again
        }
        final long now = doors.ticker.nanos();
        final EntryArithmetic.Bucket state = found == null ? null : EntryArithmetic.bucket(limit, windowMs,
            found.version(), tat, policy.block(action), now);
        if (state == null)
        {
            return new Probe(rule.limit, rule.limit, 0, 0); // never seen, or idle long enough to be reaped: full
        }
        return new Probe(state.capacity(), state.tokens(),
            state.tokens() >= 1 ? 0 : Math.max(1, ceilDiv(state.nanosToNextToken(), NANOS_PER_MS)),
            ceilDiv(state.nanosToFull(), NANOS_PER_MS));
    }

    /**
     * @param doors      the doors of the table.
     * @param identifier who.
     * @param action     what.
     * @return the window door's answer now, in the window the policy's regimes put this moment in;
     * {@code Probe(0, Long.MAX_VALUE, 0, 0)} when the action is off.
     */
    private static Probe nodeWindow(final Doors doors, final CharSequence identifier, final Action action)
    {
        final PolicySnapshot policy = doors.policy();
        final ActionRule rule = policy.rule(action);
        final long nowNanos = doors.clock.nanos();
        final long nowMs = Math.floorDiv(nowNanos, NANOS_PER_MS);
        final long unknownMs = rule.unknownForMs(nowMs);
        if (unknownMs > 0)
        {
            // as WindowDoor.check: a moment the policy's regimes no longer cover is refused until the clock reaches
            // them; numbering it by the previous regime reported tokens where every check was refused
            return new Probe(rule.current.limit(), 0, unknownMs, unknownMs);
        }
        final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
        final long limit = cursor.regime().limit();
        if (limit == 0)
        {
            return off();
        }
        final long[] words = new long[doors.shards];
        final long[] newest = new long[doors.shards];
        for (int attempt = 0; ; attempt++)
        {
            if (attempt == Doors.ATTEMPTS)
            {
                return unreachable(doors, action, limit); // reaped under every read: as a check answers
            }
            final Resolved found;
            try
            {
                found = doors.table().lookup().peek(Entry.KIND_WINDOW, action, identifier);
            }
            catch (final TableBusyException ex)
            {
                return unreachable(doors, action, limit);
            }
            if (found == null)
            {
                break;
            }
            for (int shard = 0; shard < words.length; shard++)
            {
                words[shard] = ShardWords.wordVolatile(found.entry(), shard);
                newest[shard] = ShardWords.newestVolatile(found.entry(), shard);
            }
            // the words read in place are this entry's only if the generation still says so afterwards
            if (found.entry().isCurrentAcquire(found.generation()))
            {
                break;
            }
            java.util.Arrays.fill(newest, 0);
            java.util.Arrays.fill(words, 0); // reaped and reused under the read: look again (gone: answer as new)
        }
        final EntryArithmetic.Window state = EntryArithmetic.window(words, newest, policy.block(action), doors.shards,
            nowNanos);
        final long remaining = Math.max(0, state.limit() - state.used());
        final long resetMs = Math.max(1, cursor.endMs() - nowMs); // as the window door's retry-after
        return new Probe(state.limit(), remaining, remaining >= 1 ? 0 : resetMs, resetMs);
    }

    private static Probe off()
    {
        return new Probe(0, Long.MAX_VALUE, 0, 0);
    }

    /** What a check would meet: the unreachable rule's answer (not counted: a probe is not a check). */
    private static Probe unreachable(final Doors doors, final Action action, final long limit)
    {
        final long result = doors.unavailableResult(action);
        return result == CheckResult.ADMITTED ? new Probe(limit, limit, 0, 0) : new Probe(limit, 0, result, result);
    }

    private static long ceilDiv(final long x, final long y)
    {
        return -Math.floorDiv(-x, y);
    }
}
