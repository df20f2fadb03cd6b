package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/**
 * An attacker's JVM: sprays distinct identifiers into both doors while a legitimate hot key (checked once
 * before READY, so it is already in the table) keeps being checked. Prints {@code RESULT} with the hot key's
 * admissions, the sprayed AUTH checks admitted and refused, errors, and the heap in use after a GC.
 *
 * <pre>args: file capacity hotLimit count graceMs goFile</pre>
 */
public final class Sprayer
{
    private Sprayer()
    {
    }

    public static void main(final String[] args)
    {
        final Path file = Path.of(args[0]);
        final long capacity = Long.parseLong(args[1]);
        final long hotLimit = Long.parseLong(args[2]);
        final int count = Integer.parseInt(args[3]);
        final long graceMs = Long.parseLong(args[4]);
        final Path go = Path.of(args[5]);
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(capacity)
            .limit(Action.PUBLISH, hotLimit, FloodgateConfig.MAX_WINDOW_MS).limit(Action.SUBSCRIBE, 5, 20)
            .reclaimGraceMs(graceMs).build();
        final String pid = Long.toString(ProcessHandle.current().pid());
        long hotAdmitted = 0;
        long authAdmitted = 0;
        long authRefused = 0;
        long errors = 0;
        try (Floodgate gate = Floodgate.open(config))
        {
            if (gate.checkLimitInCaller("legit-hot", Action.PUBLISH) == Floodgate.ADMITTED)
            {
                hotAdmitted++;
            }
            System.out.println("READY " + pid);
            System.out.flush();
            GoFile.await(go);
            // sprays its count, then goes on (bounded) until the janitor has reclaimed something: reclamation
            // takes a grace period of real time, which a fast spray does not last
            final long giveUp = System.nanoTime() + 60_000_000_000L;
            for (int i = 0; i < count || i % 1_000 != 0 || gate.stats().reaped() == 0 && System.nanoTime() < giveUp; i++)
            {
                try
                {
                    final String id = "spray-" + pid + "-" + i;
                    if (gate.checkLimit(id, Action.AUTH) == Floodgate.ADMITTED)
                    {
                        authAdmitted++;
                    }
                    else
                    {
                        authRefused++;
                    }
                    gate.checkLimitInCaller(id, Action.SUBSCRIBE);
                    if (gate.checkLimitInCaller("legit-hot", Action.PUBLISH) == Floodgate.ADMITTED)
                    {
                        hotAdmitted++;
                    }
                }
                catch (final RuntimeException ex)
                {
                    errors++;
                    ex.printStackTrace(System.out);
                }
            }
        }
        System.gc();
        final long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        System.out.println("RESULT hotAdmitted=" + hotAdmitted + " authAdmitted=" + authAdmitted + " authRefused=" +
            authRefused + " errors=" + errors + " heapBytes=" + heap);
    }
}
