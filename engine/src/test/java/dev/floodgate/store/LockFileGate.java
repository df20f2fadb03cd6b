package dev.floodgate.store;

import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holds the JVM's registry of lock files ({@code LockFile}'s monitor) on a thread of its own, so that an opener
 * stops exactly where it goes to the table's lock file, and the test changes the world there before it lets it on.
 */
final class LockFileGate implements AutoCloseable
{
    private final CountDownLatch release = new CountDownLatch(1);
    private final Thread holder;

    private LockFileGate(final Object monitor) throws InterruptedException
    {
        final CountDownLatch held = new CountDownLatch(1);
        holder = new Thread(() ->
        {
            synchronized (monitor)
            {
                held.countDown();
                try
                {
                    // bounded short of its users' @Timeout (120 s): a test that never lets go fails instead of
                    // holding every open of the JVM, and with them the build
                    if (!release.await(90, TimeUnit.SECONDS))
                    {
                        throw new AssertionError("the LockFile gate was not released within 90 s");
                    }
                }
                catch (final InterruptedException ignored)
                {
                    // the test ends
                }
            }
        }, "holds LockFile.OPEN");
        holder.start();
        held.await();
    }

    /** @return the gate, held. */
    static LockFileGate hold() throws ReflectiveOperationException, InterruptedException
    {
        final Field field = LockFile.class.getDeclaredField("OPEN");
        field.setAccessible(true);
        return new LockFileGate(field.get(null));
    }

    /** Waits until {@code opener} is blocked at the gate, in one of SlotLocks' acquire methods. */
    static void awaitAtLockFile(final Thread opener)
    {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!(opener.getState() == Thread.State.BLOCKED && Arrays.stream(opener.getStackTrace())
            .anyMatch(f -> f.getMethodName().startsWith("acquire") &&
                f.getClassName().equals(SlotLocks.class.getName()))))
        {
            assertTrue(System.nanoTime() < deadline, "the opener never reached the lock file");
            Thread.onSpinWait();
        }
    }

    /** Lets the opener on. */
    void release()
    {
        release.countDown();
    }

    @Override
    public void close() throws InterruptedException
    {
        release.countDown();
        holder.join(10_000);
    }
}
