package dev.floodgate.cluster;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * A node's client of the lease server: leases tokens of a cluster bucket and gives them back, through the one
 * script ({@code lease.lua}, run by EVALSHA). The script is loaded (SCRIPT LOAD) on the first connection ahead of
 * any call, so a node's first lease is one round trip, not a NOSCRIPT and an EVAL, and again on every reconnect
 * (best effort); a call that meets NOSCRIPT anyway (a SCRIPT FLUSH, a restarted Redis answering a call before the
 * reconnect's load) sends it whole by EVAL.
 *
 * <p>Guarantees, under any concurrency: every call ends in exactly one {@link Lease}, never an exception (bad
 * arguments aside, which are programming errors); a synchronous call returns within the timeout it was opened with
 * (50 ms unless said otherwise, scheduling aside), an asynchronous one completes normally within it; a call that got
 * no answer in time is {@link Lease.Outcome#UNAVAILABLE}. The server applies each (key, node, seq) at most once, so
 * a call that ended unavailable may be retried with the same seq: it is either applied then, or its first answer is
 * replayed, and nothing is taken twice. The seq of a (key, node) must grow from one request to the next: an older
 * one is {@link Lease.Outcome#STALE} and changes nothing. So a node must not reuse its name with a counter that
 * restarts (a new incarnation takes a new name, or seqs that keep growing, such as the clock's). A connection that
 * goes silent without being closed is replaced after three timeouts in a row and 3 s without a byte from Redis
 * (package-private {@code SilenceWatchdog}); calls meanwhile end unavailable, within their bound as always.
 *
 * <p>Thread-safe; calls may come from any thread, many at once, over the one connection. The stages returned by
 * the asynchronous calls complete on Lettuce's or the JDK's timer thread: do no blocking work in a dependent stage.
 */
public final class RedisLeases implements AutoCloseable
{
    /** The default bound of a call: Redis on the local network answers in well under a millisecond. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(50);
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final LeaseScript SCRIPT = LeaseScript.load();

    private final RedisConnector connector;
    private final long timeoutMs;
    private final LeaseCounters counters = new LeaseCounters();

    private RedisLeases(final RedisConnector connector, final long timeoutMs)
    {
        this.connector = connector;
        this.timeoutMs = timeoutMs;
    }

    /**
     * Opens a client and starts connecting in the background: it never waits for Redis, which may be down.
     *
     * @param uri     e.g. {@code redis://127.0.0.1:6379/0}.
     * @param timeout the bound of every call, at least 1 ms.
     * @return the client; calls answer {@link Lease.Outcome#UNAVAILABLE} until it is connected.
     * @throws IllegalArgumentException if the URI is malformed or the timeout below 1 ms.
     */
    public static RedisLeases open(final String uri, final Duration timeout)
    {
        Objects.requireNonNull(uri, "uri");
        if (timeout.toMillis() < 1)
        {
            throw new IllegalArgumentException("timeout " + timeout + ": expected at least 1 ms");
        }
        final byte[] script = SCRIPT.text().getBytes(StandardCharsets.UTF_8);
        return new RedisLeases(new RedisConnector(uri, timeout, commands -> commands.scriptLoad(script)),
            timeout.toMillis());
    }

    /**
     * {@link #open(String, Duration)} with {@link #DEFAULT_TIMEOUT}.
     *
     * @param uri e.g. {@code redis://127.0.0.1:6379/0}.
     * @return the client.
     */
    public static RedisLeases open(final String uri)
    {
        return open(uri, DEFAULT_TIMEOUT);
    }

    /**
     * Takes up to {@code want} tokens from the bucket.
     *
     * @param key   the bucket.
     * @param limit its quota (the bucket follows a change: it keeps its whole tokens, at most the new limit).
     * @param node  this node's name, {@code [A-Za-z0-9._-]}, 1 to 64 characters.
     * @param seq   this request's sequence number for (key, node), 0 to 2^53 - 1.
     * @param want  tokens wanted, 1 to 2^53 - 1.
     * @return the stage of the lease: {@link Lease#tokens()} granted, 0 to {@code want}.
     */
    public CompletionStage<Lease> leaseAsync(final LeaseKey key, final ClusterLimit limit, final String node,
        final long seq, final long want)
    {
        return call(LeaseScript.LEASE, key, limit, node, seq, want).thenApply(lease ->
        {
            counters.lease(key, node, seq, lease);
            return lease;
        });
    }

    /**
     * {@link #leaseAsync}, waiting for its answer at most the timeout.
     *
     * @return the lease, {@link Lease.Outcome#UNAVAILABLE} if it did not come in time.
     */
    public Lease lease(final LeaseKey key, final ClusterLimit limit, final String node, final long seq,
        final long want)
    {
        final Lease lease = await(call(LeaseScript.LEASE, key, limit, node, seq, want));
        counters.lease(key, node, seq, lease);
        return lease;
    }

    /**
     * Gives tokens back to the bucket, which never holds more than its capacity (the rest are dropped). Under the
     * sequence number of this node's last lease for the bucket, it gives that lease up too: the lease's grant goes
     * back with the tokens. The caller sends one only for a lease whose answer it never took and never will (it moved
     * its own sequence past the number first): a lease that timed out after the server applied it.
     *
     * @param tokens tokens given back, 1 to 2^53 - 1; the other parameters as {@link #leaseAsync}'s.
     * @return the stage of the refund: {@link Lease#tokens()} is {@code tokens} once applied.
     */
    public CompletionStage<Lease> refundAsync(final LeaseKey key, final ClusterLimit limit, final String node,
        final long seq, final long tokens)
    {
        return call(LeaseScript.REFUND, key, limit, node, seq, tokens).thenApply(refund ->
        {
            counters.refund(refund);
            return refund;
        });
    }

    /**
     * {@link #refundAsync}, waiting for its answer at most the timeout.
     *
     * @return the refund, {@link Lease.Outcome#UNAVAILABLE} if it did not come in time.
     */
    public Lease refund(final LeaseKey key, final ClusterLimit limit, final String node, final long seq,
        final long tokens)
    {
        final Lease refund = await(call(LeaseScript.REFUND, key, limit, node, seq, tokens));
        counters.refund(refund);
        return refund;
    }

    /** @return this client's running totals. */
    public LeaseCounters counters()
    {
        return counters;
    }

    /** @return whether the connection is up now (a call may still fail the next moment). */
    public boolean isConnected()
    {
        return connector.isConnected();
    }

    /**
     * Waits for the connection, as a node's start may; the calls themselves never wait for it.
     *
     * @param max how long to wait at most.
     * @return whether the connection is up.
     * @throws InterruptedException if interrupted while waiting.
     */
    public boolean awaitConnected(final Duration max) throws InterruptedException
    {
        return connector.awaitConnected(max);
    }

    /** @return the bound of every call, in milliseconds. */
    public long timeoutMs()
    {
        return timeoutMs;
    }

    /** Closes the connection; later calls answer {@link Lease.Outcome#UNAVAILABLE}. Gives nothing back itself. */
    @Override
    public void close()
    {
        connector.close();
    }

    /** The call's own future: completed by the reply or, at the bound, with unavailable, whichever comes first. */
    private CompletableFuture<Lease> call(final byte op, final LeaseKey key, final ClusterLimit limit,
        final String node, final long seq, final long amount)
    {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(limit, "limit");
        requireRequest(node, seq, amount);
        final CompletableFuture<Lease> result = new CompletableFuture<>();
        final RedisAsyncCommands<byte[], byte[]> commands = connector.commands();
        if (commands == null)
        {
            result.complete(Lease.unavailable());
            return result;
        }
        final byte[][] keys = {key.shared()};
        final byte[][] args = LeaseScript.args(op, node, seq, amount, limit);
        try
        {
            counters.roundTrip();
            commands.<Object>evalsha(SCRIPT.sha1(), ScriptOutputType.MULTI, keys, args).toCompletableFuture()
                .whenComplete((reply, error) -> connector.failed(commands, error))
                .exceptionallyCompose(error -> unknownScript(error) ? sendWhole(commands, keys, args) :
                    CompletableFuture.failedFuture(error))
                .whenComplete((reply, error) -> result.complete(error == null ? LeaseScript.parse(reply) :
                    Lease.unavailable()));
        }
        catch (final RuntimeException ex)
        {
            // Lettuce may refuse at once (disconnected, queue full, closed) by throwing instead of failing the future
            connector.failed(commands, ex);
            result.complete(Lease.unavailable());
        }
        return result.completeOnTimeout(Lease.unavailable(), timeoutMs, TimeUnit.MILLISECONDS);
    }

    private CompletableFuture<Object> sendWhole(final RedisAsyncCommands<byte[], byte[]> commands,
        final byte[][] keys, final byte[][] args)
    {
        counters.scriptReload();
        counters.roundTrip();
        return commands.<Object>eval(SCRIPT.text(), ScriptOutputType.MULTI, keys, args).toCompletableFuture()
            .whenComplete((reply, error) -> connector.failed(commands, error));
    }

    private static boolean unknownScript(final Throwable error)
    {
        for (Throwable cause = error; cause != null; cause = cause.getCause())
        {
            if (cause instanceof RedisNoScriptException)
            {
                return true;
            }
        }
        return false;
    }

    /** Waits at most the bound; the call's future is then settled, so the counters count what the caller got. */
    private Lease await(final CompletableFuture<Lease> call)
    {
        try
        {
            return call.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            // settled below
        }
        call.complete(Lease.unavailable());
        return call.join();
    }

    private static void requireRequest(final String node, final long seq, final long amount)
    {
        if (node == null || !NODE.matcher(node).matches())
        {
            throw new IllegalArgumentException("node " + node + ": expected 1 to 64 of [A-Za-z0-9._-]");
        }
        if (seq < 0 || seq > LeaseScript.MAX_NUMBER)
        {
            throw new IllegalArgumentException("seq " + seq + ": expected 0 to 2^53 - 1");
        }
        if (amount < 1 || amount > LeaseScript.MAX_NUMBER)
        {
            throw new IllegalArgumentException("amount " + amount + ": expected 1 to 2^53 - 1");
        }
    }
}
