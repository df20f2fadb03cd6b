package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Probe;
import dev.floodgate.TableBusyException;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.Resolved;

/**
 * A probe's cluster part (issue 12): the node door's probe of an action with a cluster quota, narrowed by what the node
 * knows of the cluster now, without network I/O and without waiting ({@link Probe} says what that guarantees). No more
 * remain than the cluster limit, as a larger cost is never admitted. Where a check its lease's balance cannot cover
 * would be admitted as far as the node knows ({@link LeaseWait#probeShort}), the node's tokens stand; elsewhere at most
 * the balance remains, and when that cannot cover 1, the wait that check answers. Before, a refill on the wire with no
 * drained mark left the node's tokens and no wait, where the check that waited for it was refused by the fallback.
 *
 * <p>Not on any check's path. Stateless; thread-safe.
 */
final class ClusterProbe
{
    private ClusterProbe()
    {
    }

    /**
     * @param node the node door's probe of {@code action} (or {@link ClusterOnly#node} when the node's quota is off
     *             under this JVM's cluster quota).
     * @return {@code node} narrowed by the cluster's part.
     */
    static Probe narrow(final Doors doors, final CharSequence identifier, final Action action, final Probe node)
    {
        final long capped = Math.min(node.remaining(), doors.cluster.limit(action));
        final long now = doors.ticker.nanos();
        for (int attempt = 0; attempt < Doors.ATTEMPTS; attempt++)
        {
            final Resolved found;
            try
            {
                found = doors.table().lookup().peek(Entry.KIND_LEASE, action, identifier);
            }
            catch (final TableBusyException ex)
            {
                break; // as a check that cannot reach the lease entry in time
            }
            if (found == null)
            {
                return answer(node, capped, 0, doors.cluster.probeShort(action, null, now));
            }
            final long balance = LeaseWords.balanceVolatile(found.entry());
            final long shortMs = doors.cluster.probeShort(action, found.entry(), now);
            // the words read in place are this entry's only if the generation still says so afterwards
            if (found.entry().isCurrentAcquire(found.generation()))
            {
                return answer(node, capped, balance, shortMs);
            }
        }
        final long unreachable = doors.unavailableResult(action); // the unreachable rule, as a check meets it
        return answer(node, capped, 0, unreachable);
    }

    /**
     * @param shortMs what a check of cost 1 its balance cannot cover answers: {@link CheckResult#ADMITTED} or a wait.
     */
    private static Probe answer(final Probe node, final long capped, final long balance, final long shortMs)
    {
        if (shortMs == CheckResult.ADMITTED)
        {
            return new Probe(node.limit(), capped, node.retryAfterMs(), node.resetMs());
        }
        final long remaining = Math.min(capped, Math.max(0, balance));
        return new Probe(node.limit(), remaining, remaining >= 1 ? node.retryAfterMs() :
            Math.max(node.retryAfterMs(), shortMs), node.resetMs());
    }
}
