package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.door.LeaseSource;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The doors' {@link LeaseSource} on Redis: each action's cluster quota leased through {@link RedisLeases} under
 * this node's name. Made reflectively by the engine only when a cluster quota is configured, so Lettuce is needed
 * only then. Thread-safe.
 */
public final class RedisLeaseSource implements LeaseSource
{
    /**
     * How long opening waits for the first connection: a cold Lettuce takes seconds to connect on a loaded host
     * (2.9 s measured on two shared cores), and a node that did not wait would serve its first seconds on the
     * fallback. A Redis that is down costs this wait once, at open; checks never wait for it.
     */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(5);
    /**
     * The bound of a lease: a check waits for one at most 50 ms ({@code LeaseWait}), but the lease itself may
     * take longer and its grant is still committed. At 50 ms for both, a loaded host (load 14 on two cores) timed
     * out most leases and refused nearly every clustered check although Redis had granted the tokens.
     */
    static final Duration LEASE_TIMEOUT = Duration.ofSeconds(1);

    private final RedisLeases leases;
    private final ClusterLimit[] limits;
    private final String node;

    /**
     * Opens the client and waits for its connection at most {@link #CONNECT_WAIT}; if Redis is not there by then,
     * it keeps connecting in the background and answers unavailable until it is connected.
     *
     * @param uri       the Redis URI.
     * @param limits    per action ordinal, the cluster limit (0 where none).
     * @param windowsMs per action ordinal, the cluster window.
     * @param node      this node's name, {@code [A-Za-z0-9._-]}, 1 to 64 characters, one per table file.
     */
    public RedisLeaseSource(final String uri, final long[] limits, final long[] windowsMs, final String node)
    {
        this.limits = new ClusterLimit[limits.length];
        for (int a = 0; a < limits.length; a++)
        {
            this.limits[a] = limits[a] == 0 || windowsMs[a] == 0 ? null : new ClusterLimit(limits[a], windowsMs[a]);
        }
        this.node = node;
        this.leases = RedisLeases.open(uri, LEASE_TIMEOUT);
        try
        {
            leases.awaitConnected(CONNECT_WAIT);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt(); // open anyway: the checks answer per fallback until it connects
        }
    }

    @Override
    public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
        final long want)
    {
        return leases.leaseAsync(LeaseKey.of(action, identifier), limits[action.ordinal()], node, sequence, want)
            .thenApply(RedisLeaseSource::grant);
    }

    @Override
    public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
        final long tokens)
    {
        return leases.refundAsync(LeaseKey.of(action, identifier), limits[action.ordinal()], node, sequence, tokens)
            .thenApply(RedisLeaseSource::grant);
    }

    private static Grant grant(final Lease lease)
    {
        return switch (lease.outcome())
        {
            case APPLIED, REPLAYED -> new Grant(GRANTED, lease.tokens(), lease.waitMs(), lease.asked());
            case STALE -> new Grant(STALE, 0, 0);
            default -> new Grant(UNAVAILABLE, 0, 0);
        };
    }

    @Override
    public long timeoutMs()
    {
        return leases.timeoutMs();
    }

    @Override
    public Totals totals()
    {
        final LeaseCounters c = leases.counters();
        return new Totals(c.roundTrips(), c.tokensRefunded(), c.unavailable());
    }

    @Override
    public boolean connected()
    {
        return leases.isConnected();
    }

    @Override
    public void close()
    {
        leases.close();
    }
}
