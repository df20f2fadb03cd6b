package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A seeded random mix of both doors over a few keys, with resets of the last key and janitor passes, from
 * several threads. Prints {@code RESULT} with, per door and key, attempts and admissions, and the resets done.
 *
 * <pre>args: file seed threads opsPerThread limit goFile [victim]</pre>
 * A {@code victim} runs until it is killed and prints each admission ({@code A door key}) as it happens and each
 * reset before it starts ({@code R}), so a test that SIGKILLs it at a random moment (inside an insert, a reset
 * or a janitor pass) can still count what it did.
 */
public final class RandomMix
{
    public static final int KEYS = 4;

    private RandomMix()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final long seed = Long.parseLong(args[1]);
        final int threads = Integer.parseInt(args[2]);
        final int ops = Integer.parseInt(args[3]);
        final long limit = Long.parseLong(args[4]);
        final Path go = Path.of(args[5]);
        final boolean victim = args.length > 6 && args[6].equals("victim");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(10_000)
            .limit(Action.PUBLISH, limit, FloodgateConfig.MAX_WINDOW_MS).reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).build();
        final AtomicLongArray attempts = new AtomicLongArray(2 * KEYS);
        final AtomicLongArray admitted = new AtomicLongArray(2 * KEYS);
        final AtomicLongArray resets = new AtomicLongArray(1);
        final AtomicLongArray errors = new AtomicLongArray(1);
        try (Floodgate gate = Floodgate.open(config))
        {
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            GoFile.await(go);
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final Random random = new Random(seed * 31 + t);
                final boolean resetter = t == 0;
                workers.add(new Thread(() ->
                {
                    for (int i = 0; victim || i < ops; i++)
                    {
                        try
                        {
                            final int op = random.nextInt(1000);
                            final int key = random.nextInt(KEYS);
                            if (op < 2 && resetter)
                            {
                                if (victim)
                                {
                                    announce("R");
                                }
                                gate.reset("key-" + (KEYS - 1), Action.PUBLISH);
                                resets.incrementAndGet(0);
                            }
                            else if (op < 6)
                            {
                                gate.cleanup();
                            }
                            else
                            {
                                final int door = op & 1;
                                final long result = door == 0 ? gate.checkLimit("key-" + key, Action.PUBLISH) :
                                    gate.checkLimitInCaller("key-" + key, Action.PUBLISH);
                                attempts.incrementAndGet(door * KEYS + key);
                                if (result == Floodgate.ADMITTED)
                                {
                                    admitted.incrementAndGet(door * KEYS + key);
                                    if (victim)
                                    {
                                        announce("A " + door + " " + key);
                                    }
                                }
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            errors.incrementAndGet(0);
                            ex.printStackTrace(System.out);
                        }
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (final Thread worker : workers)
            {
                worker.join();
            }
        }
        System.out.println("RESULT attempts=" + attempts + " admitted=" + admitted + " resets=" + resets.get(0) +
            " errors=" + errors.get(0));
    }

    private static synchronized void announce(final String line)
    {
        System.out.println(line);
        System.out.flush();
    }

    /**
     * @param line a RESULT line.
     * @param name {@code attempts} or {@code admitted}.
     * @return the array it printed.
     */
    public static long[] array(final String line, final String name)
    {
        final int start = line.indexOf(name + "=[") + name.length() + 2;
        final String[] parts = line.substring(start, line.indexOf(']', start)).split(", ");
        final long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            values[i] = Long.parseLong(parts[i]);
        }
        return values;
    }
}
