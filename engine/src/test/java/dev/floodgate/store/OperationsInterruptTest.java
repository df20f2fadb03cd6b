package dev.floodgate.store;

import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Operations.endAndAwait} (a table's detach, inside {@code close()}) parked between looks at the operations in
 * flight, and {@code parkNanos} returns at once while the thread's interrupt status is set: a close on an interrupted
 * thread spun on a core until the operations ended. Seen here as the status: a wait that parks must have set it
 * aside (found by review; fails before: the status stays set while it waits).
 */
@Timeout(120)
class OperationsInterruptTest
{
    @Test
    void shouldParkThroughInterruptsWhileOperationsAreInFlightAndGiveTheStatusBack() throws Exception
    {
        final Operations operations = new Operations(Path.of("t.map"));
        operations.enter();
        final AtomicBoolean released = new AtomicBoolean();
        final AtomicBoolean interruptedAfter = new AtomicBoolean();
        final Thread closer = new Thread(() ->
        {
            Thread.currentThread().interrupt();
            released.set(operations.endAndAwait(TimeUnit.SECONDS.toNanos(100)));
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        }, "interrupted-closer");
        closer.start();
        Await.until("the closer parked in its wait with its interrupt status set aside (spinning instead)", 20,
            () -> parkedClear(closer));
        closer.interrupt(); // one arriving during the wait: it ends neither the wait nor the parking
        Await.until("the closer parked again after an interrupt during its wait", 20, () -> parkedClear(closer));
        operations.exit();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(closer.isAlive(), "the wait did not end once the operation had");
        assertTrue(released.get(), "nothing left in flight: the slot may be released");
        assertTrue(interruptedAfter.get(), "the caller's interrupt status was not given back");
    }

    private static boolean parkedClear(final Thread closer)
    {
        return closer.getState() == Thread.State.TIMED_WAITING && !closer.isInterrupted();
    }
}
