package dev.floodgate.testkit;

import java.util.concurrent.TimeUnit;

/** Ends a process a test started, with whatever it started (a CLI's workers, a wrapper's JVM). */
public final class ProcessTree
{
    private ProcessTree()
    {
    }

    /**
     * SIGKILLs {@code process}'s descendants, listed while it still lives (once it dies they are reparented out of its
     * tree), then it, and reaps it: 10 s at most. Nothing when it has ended already. {@link Process#destroyForcibly}
     * also closes this side of its pipes: where its output is still wanted, {@link ChildJvm#kill} keeps it.
     */
    public static void kill(final Process process) throws InterruptedException
    {
        if (process.isAlive())
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
