package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.door.LeaseSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One refund sent through a real source (the give-back's, which a test wraps), and its answer from Redis: sent
 * again under its number while the client's bound (1 s) passes without one, a minute at most and while connected.
 * A loaded host's round trip can take longer, and the script replays a refund it applied (same node, number and
 * amount), so a resend is the first one's answer late, never a second refund. Sent once, on construction; its answer
 * is for one thread to wait for.
 */
public final class SentRefund
{
    private final LeaseSource source;
    private final Action action;
    private final String identifier;
    private final long sequence;
    private final long tokens;
    private final CompletableFuture<LeaseSource.Grant> sent;

    public SentRefund(final LeaseSource source, final Action action, final String identifier, final long sequence,
        final long tokens)
    {
        this.source = source;
        this.action = action;
        this.identifier = identifier;
        this.sequence = sequence;
        this.tokens = tokens;
        this.sent = send();
    }

    /** @return Redis's answer, waited for here, outside any bound of the engine's. */
    public LeaseSource.Grant answer() throws InterruptedException, ExecutionException, TimeoutException
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        LeaseSource.Grant answer = sent.get(1, TimeUnit.MINUTES);
        while (answer.status() == LeaseSource.UNAVAILABLE && source.connected() &&
            System.nanoTime() - deadline < 0)
        {
            answer = send().get(1, TimeUnit.MINUTES);
        }
        return answer;
    }

    private CompletableFuture<LeaseSource.Grant> send()
    {
        return source.refund(action, identifier, sequence, tokens).toCompletableFuture();
    }
}
