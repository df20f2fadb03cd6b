package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.door.LeaseSource;

import java.util.concurrent.CompletionStage;

/**
 * A lease source that forwards every call to a real one: a test overrides the call it watches or holds (a refund
 * counted, a refund held until released) and leaves the rest as the engine would see it.
 */
public class ForwardingLeaseSource implements LeaseSource
{
    private final LeaseSource real;

    public ForwardingLeaseSource(final LeaseSource real)
    {
        this.real = real;
    }

    @Override
    public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
        final long want)
    {
        return real.lease(action, identifier, sequence, want);
    }

    @Override
    public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
        final long tokens)
    {
        return real.refund(action, identifier, sequence, tokens);
    }

    @Override
    public Totals totals()
    {
        return real.totals();
    }

    @Override
    public boolean connected()
    {
        return real.connected();
    }

    @Override
    public long timeoutMs()
    {
        return real.timeoutMs();
    }

    @Override
    public void close()
    {
        real.close();
    }
}
