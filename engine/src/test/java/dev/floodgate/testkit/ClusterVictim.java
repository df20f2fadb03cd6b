package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM of one node, to be SIGKILLed while its lease's refill is in flight. With a cluster quota on PUBLISH
 * ({@link ClusterKit#publishNode}, lease {@code L}): prints {@code READY}; once the first go file exists, checks one
 * identifier until admitted (a cold lease of L) and prints {@code LEASED admitted=1}; once the second exists (the
 * parent has stopped Redis meanwhile), checks until it has admitted {@code L / 2 + 1} in all, the last of which
 * starts the refill (the balance fell below half a lease), prints {@code SPENT admitted=N} at once, and waits to
 * be killed. Every wait is bounded: it exits 2 if nothing comes in 120 s.
 *
 * <p>Arguments: file, Redis URI, identifier, cluster limit, cluster window ms, lease, first go file, second go file.
 */
public final class ClusterVictim
{
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private ClusterVictim()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String identifier = args[2];
        final long lease = Long.parseLong(args[5]);
        // never closed: the process dies holding it
        final Floodgate gate = Floodgate.open(ClusterKit.publishNode(Path.of(args[0]), args[1],
            Long.parseLong(args[3]), Long.parseLong(args[4]), lease).build());
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        awaitFile(Path.of(args[6]));
        long admitted = 0;
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (admitted == 0)
        {
            if (gate.checkLimit(identifier, Action.PUBLISH) == Floodgate.ADMITTED)
            {
                admitted++;
            }
            else
            {
                giveUpAfter(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // a lease that missed its bound
            }
        }
        System.out.println("LEASED admitted=" + admitted);
        System.out.flush();
        awaitFile(Path.of(args[7]));
        final long target = lease / 2 + 1;
        while (admitted < target)
        {
            // spent from the balance the first lease left: no round trip, so a stopped Redis does not matter
            if (gate.checkLimit(identifier, Action.PUBLISH) == Floodgate.ADMITTED)
            {
                admitted++;
            }
            else
            {
                giveUpAfter(deadline);
            }
        }
        System.out.println("SPENT admitted=" + admitted);
        System.out.flush();
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS)); // the parent's SIGKILL ends it long before
        System.exit(2);
    }

    private static void awaitFile(final Path file) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (!Files.exists(file))
        {
            giveUpAfter(deadline);
            Thread.sleep(1);
        }
    }

    private static void giveUpAfter(final long deadline)
    {
        if (System.nanoTime() - deadline > 0)
        {
            System.out.println("GAVE UP");
            System.out.flush();
            System.exit(2);
        }
    }
}
