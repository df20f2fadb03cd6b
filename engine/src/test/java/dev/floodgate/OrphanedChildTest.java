package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Command;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The harness's promise (testkit.ChildMain): a child JVM ends once the test JVM that started it is gone without its
 * shutdown hooks (SIGKILL), including a child started through a wrapper, whose parent is the wrapper and not the test
 * JVM: {@code LivenessTest}'s holders ("forever", their standard input not the test's) under {@code sh -c} and under
 * {@code unshare --pid}, where the child is pid 1 of its namespace. A watch of the child's parent missed both: the
 * wrapper outlives the test JVM, and pid 1 has no parent to watch. Here a starter JVM stands for the test JVM and is
 * SIGKILLed.
 */
@Timeout(120)
class OrphanedChildTest
{
    /** Stands for a test JVM: starts a wrapped child, says the wrapper's tree, and waits to be killed. */
    public static final class Starter
    {
        public static void main(final String[] args) throws Exception
        {
            final ChildJvm child = ChildJvm.startWrapped(Arrays.asList(args), Sleeper.class);
            child.awaitLine("SLEEPING", 60);
            final List<String> tree = new ArrayList<>(List.of(Long.toString(child.pid())));
            ProcessHandle.of(child.pid()).orElseThrow().descendants().forEach(p -> tree.add(Long.toString(p.pid())));
            System.out.println("TREE " + String.join(" ", tree));
            Thread.sleep(60_000); // until killed; bounded all the same
        }
    }

    /** A child that holds on, as a holder started with "forever" does; bounded, so a failed run leaks it 2 minutes. */
    public static final class Sleeper
    {
        public static void main(final String[] args) throws Exception
        {
            System.out.println("SLEEPING");
            Thread.sleep(120_000);
        }
    }

    @Test
    void aChildUnderAShellThatWaitsForItEndsWithItsStarter() throws Exception
    {
        // the shell waits for the JVM and outlives the starter: the JVM's parent never changes
        assertEndsWithItsStarter("sh", "-c", "\"$@\"; exit $?", "sh");
    }

    @Test
    void aChildInAPidNamespaceOfItsOwnEndsWithItsStarter() throws Exception
    {
        assumeTrue(Command.succeeds("unshare", "--pid", "--fork", "true"), "no pid namespaces here");
        // as LivenessTest's holder: pid 1 there, the host's /proc
        assertEndsWithItsStarter("unshare", "--pid", "--fork", "--kill-child");
    }

    private static void assertEndsWithItsStarter(final String... wrapper) throws Exception
    {
        final List<ProcessHandle> tree = new ArrayList<>();
        try (ChildJvm starter = ChildJvm.start(Starter.class, wrapper))
        {
            for (final String pid : starter.awaitLine("TREE ", 120).substring("TREE ".length()).split(" "))
            {
                ProcessHandle.of(Long.parseLong(pid)).ifPresent(tree::add);
            }
            assertTrue(tree.size() >= 2, "the wrapper and its JVM: " + tree);
            ProcessHandle.of(starter.pid()).orElseThrow().destroyForcibly(); // SIGKILL: no shutdown hook runs
            for (final ProcessHandle process : tree)
            {
                try
                {
                    process.onExit().get(30, TimeUnit.SECONDS);
                }
                catch (final TimeoutException stillRunning)
                {
                    // asserted below
                }
                assertFalse(process.isAlive(), process.pid() + " (" + process.info().command().orElse("?") +
                    ") still runs 30 s after its starter was killed");
            }
        }
        finally
        {
            tree.forEach(ProcessHandle::destroyForcibly);
        }
    }
}
