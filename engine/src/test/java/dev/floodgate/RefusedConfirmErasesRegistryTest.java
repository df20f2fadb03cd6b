package dev.floodgate;

import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * LockFilePairing.confirm runs after BackgroundAgent's register. Process A pairs with lock file L1 and is slow before
 * registering (a publish, preTouch of a large table); L1 is removed; process B makes L2, finds nobody registered, pairs
 * with it and registers. Both lock files are empty but for them, so both took slot 0. A then registers into registry
 * slot 0 (ProcessRegistry.register stores without looking), overwriting B's owner word; A's confirm throws, and its
 * failed attach unregisters slot 0: B, alive and checking, is no longer named in the registry (attachedProcesses 0,
 * the janitors' stall protection and the pairing rule's "names no attached process" both blind to it).
 */
@Timeout(120)
class RefusedConfirmErasesRegistryTest
{
    @TempDir
    Path dir;

    /** Child: opens a Floodgate whose ticker stops the open at BackgroundAgent's register until file args[1] exists. */
    public static final class SlowRegistrant
    {
        public static void main(final String[] args) throws Exception
        {
            final Ticker ticker = new Ticker()
            {
                private volatile boolean paused;

                @Override
                public long nanos()
                {
                    if (!paused && StackWalker.getInstance().walk(s -> s.anyMatch(f ->
                        f.getClassName().equals("dev.floodgate.BackgroundAgent") && f.getMethodName().equals("<init>"))))
                    {
                        paused = true;
                        System.out.println("PAUSED");
                        System.out.flush();
                        while (!Files.exists(Path.of(args[1])))
                        {
                            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
                        }
                    }
                    return System.nanoTime();
                }
            };
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000)
                .ticker(ticker).limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
            {
                System.out.println("ATTACHED");
            }
            catch (final FloodgateFileException refused)
            {
                System.out.println("REFUSED " + refused.getMessage());
            }
            System.out.flush();
        }
    }

    @Test
    void shouldLeaveTheAttachedProcessInTheRegistryWhenAnotherIsRefusedAtConfirm() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
        Floodgate.open(config).close();
        try (ChildJvm a = ChildJvm.start(SlowRegistrant.class, file.toString(),
            dir.resolve("go").toString()))
        {
            a.awaitLine("PAUSED", 60); // paired with L1, slot claimed, not registered
            Files.delete(SlotLocks.lockFileOf(file));
            final Floodgate opened;
            try
            {
                opened = Floodgate.open(config); // pairs L2: nobody registered
            }
            catch (final FloodgateFileException refused)
            {
                return; // A's lock on L1 seen: the race cannot arise
            }
            try (Floodgate b = opened)
            {
                try (FloodgateReader reader = FloodgateReader.open(file))
                {
                    assertEquals(1, reader.attachedProcesses(), "B registered");
                }
                Files.createFile(dir.resolve("go"));
                a.awaitLine("REFUSED", 60); // A's confirm sees L2 (as designed)
                assertEquals(0, a.awaitExit(60));
                assertEquals(Floodgate.ADMITTED, b.checkLimit("alice", Action.PUBLISH), "B still runs");
                try (FloodgateReader reader = FloodgateReader.open(file))
                {
                    assertEquals(1, reader.attachedProcesses(), "B, alive and attached, is still in the registry " +
                        "after A's refused attach");
                }
            }
        }
    }
}
