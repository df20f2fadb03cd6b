package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lookup without the lock, racing bucket conversions under the lock: whatever it accepts carries the units
 * its word is in. The converter cycles the units with the version (10, 20, 30 per minute), so an entry read
 * with units older than its version's is a torn read, the kind that makes a check apply one policy's
 * arithmetic to another's word. (The next version's units with this version's label is a state a conversion
 * passes through on purpose: the word is already in those units, only the label lags, and a check whose
 * policy is newer than the label resolves again.) Found by review: the lookup read the units before it looked
 * for a frozen word, and a conversion between the two went unseen.
 */
@Timeout(120)
class FinderConversionRaceTest
{
    private static final long WINDOW_MS = 60_000;
    private static final long NOW = 1_000_000_000L;

    @TempDir
    Path dir;

    private static long limitOf(final long version)
    {
        return 10 + 10 * (version % 3);
    }

    @Test
    void shouldNeverAcceptOlderUnitsThanItsVersions() throws Exception
    {
        try (QuotaTable table = QuotaTable.open(dir.resolve("race.map"), 1_000, 2, false, NOW))
        {
            final Entry entry = table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, "10.0.0.1", limitOf(1),
                WINDOW_MS, 1, new TokenBucket(limitOf(1), WINDOW_MS).fullWord(NOW), NOW, null).entry();
            final TokenBucket[] units = {new TokenBucket(10, WINDOW_MS), new TokenBucket(20, WINDOW_MS),
                new TokenBucket(30, WINDOW_MS)};
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicLong conversions = new AtomicLong();
            // the only writer of the entry, so it needs no lock: conversions as fast as they go, each step a store
            final Thread converter = new Thread(() ->
            {
                for (long version = 2; !done.get(); version++)
                {
                    final TokenBucket to = units[(int)(version % 3)];
                    BucketConversion.run(entry, table.header()::nextGeneration, limitOf(version), WINDOW_MS, to,
                        version, () -> NOW, BucketConversion.STEPS);
                    conversions.lazySet(version);
                }
            });
            converter.start();
            final AtomicReference<String> torn = new AtomicReference<>();
            long reads = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            try
            {
                while (System.nanoTime() < deadline && torn.get() == null)
                {
                    final Resolved r = table.lookup().peek(Entry.KIND_BUCKET, Action.AUTH, "10.0.0.1");
                    if (r != null && r.limit() != limitOf(r.version()) && r.limit() != limitOf(r.version() + 1))
                    {
                        torn.set("generation " + r.generation() + " limit " + r.limit() + " version " + r.version());
                    }
                    reads++;
                }
            }
            finally
            {
                done.set(true);
                converter.join();
            }
            assertNull(torn.get(), "a torn read after " + conversions + " conversions: " + torn.get());
            assertTrue(reads > 1_000 && conversions.get() > 1_000, "the race ran: " + conversions + " conversions, " +
                reads + " reads");
        }
    }
}
