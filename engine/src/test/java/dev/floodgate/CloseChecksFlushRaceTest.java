package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code checks()} and {@code stats()} (so every scrape of the node meters, {@code FloodgateMetrics.nodeStats})
 * flush this process's running totals into its slot of the file. {@code Doorkeeper.operate} tests "closed" and
 * then runs the call with nothing held against {@code close()}: a scrape that passed the closed test while another
 * thread closes the instance flushes <em>after</em> close's final flush and {@code ProcessRegistry.unregister}, which
 * folded the slot into the retired block and zeroed it. The slot then holds the totals again, beside the retired
 * copy: every node-wide counter (checks(), stats(), watch, stats --prometheus) counts this process's checks twice,
 * for good (the next process to take the slot retires them as a dead process's).
 *
 * <p>Deterministic: the scrape thread's suspension between the closed test and its flush is played by running the
 * very call it would resume with ({@code Attachment.checks()}, what {@code operate} applies) after {@code close()}
 * returned.
 */
@Timeout(60)
class CloseChecksFlushRaceTest
{
    @TempDir
    Path dir;

    @Test
    void shouldNotCountAClosedProcessesChecksTwiceWhenAScrapeRacesClose() throws Exception
    {
        final Path file = dir.resolve("flush.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(10_000)
            .limit(Action.PUBLISH, 1_000, 60_000).build();
        try (Floodgate other = Floodgate.open(config)) // a sibling JVM's instance: its own registry slot
        {
            final Floodgate closing = Floodgate.open(config);
            for (int i = 0; i < 5; i++)
            {
                assertEquals(Floodgate.ADMITTED, closing.checkLimit("alice", Action.PUBLISH));
            }
            // a scraping thread: Floodgate.checks() -> Doorkeeper.operate passed ensureOpen() and is descheduled here
            final Attachment inFlight = attachmentOf(closing);
            closing.close(); // another thread: final flush, unregister (slot folded into the retired block, zeroed)
            inFlight.checks(); // the scrape resumes: flushes its totals into the slot it left
            assertEquals(5, other.checks().get(Action.PUBLISH).admitted(),
                "the node's admitted count after one process admitted 5 and closed while a scrape was in flight");
        }
    }

    private static Attachment attachmentOf(final Floodgate floodgate) throws ReflectiveOperationException
    {
        final Field keeper = Floodgate.class.getDeclaredField("keeper");
        keeper.setAccessible(true);
        final Field attachment = Doorkeeper.class.getDeclaredField("attachment");
        attachment.setAccessible(true);
        return (Attachment)attachment.get(keeper.get(floodgate));
    }
}
