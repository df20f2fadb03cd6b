package dev.floodgate.testkit;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sends a signal to a process the way an operator would ({@code kill -STOP}, {@code -CONT}, {@code -KILL}). */
public final class Signals
{
    private Signals()
    {
    }

    /**
     * @param signal the signal's name, e.g. {@code STOP}.
     * @param pid    the process.
     */
    public static void send(final String signal, final long pid) throws Exception
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + signal + " " + pid);
    }
}
