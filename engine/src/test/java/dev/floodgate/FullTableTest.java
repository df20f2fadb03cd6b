package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Sprayer;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ten times the capacity in distinct identifiers, sprayed from three JVMs at once. */
@Timeout(300)
class FullTableTest
{
    private static final long CAPACITY = 2_000;
    private static final long HOT_LIMIT = 3_000;

    @TempDir
    Path dir;

    @Test
    void shouldStayBoundedAndKeepEnforcingHotKeysExactlyWhenSprayedWithTenTimesItsCapacity() throws Exception
    {
        final Path file = dir.resolve("full.map");
        final Path go = dir.resolve("go");
        final int perJvm = (int)(10 * CAPACITY / 3) + 1;
        final List<ChildJvm> sprayers = new ArrayList<>();
        final long fileBefore;
        try
        {
            // created with the sprayers' policy: the first opener of a file publishes its policy for every JVM
            Floodgate.open(FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.PUBLISH, HOT_LIMIT, FloodgateConfig.MAX_WINDOW_MS).limit(Action.SUBSCRIBE, 5, 20)
                .build()).close();
            fileBefore = Files.size(file);
            for (int i = 0; i < 3; i++)
            {
                sprayers.add(ChildJvm.start(Sprayer.class, file.toString(), Long.toString(CAPACITY),
                    Long.toString(HOT_LIMIT), Integer.toString(perJvm), Long.toString(FloodgateConfig.MIN_RECLAIM_GRACE_MS),
                    go.toString()));
            }
            for (final ChildJvm sprayer : sprayers)
            {
                sprayer.awaitLine("READY", 120);
            }
            Files.createFile(go);
            long hot = 0;
            long authRefused = 0;
            long maxHeap = 0;
            for (final ChildJvm sprayer : sprayers)
            {
                final String result = sprayer.awaitLine("RESULT", 180);
                assertEquals(0, sprayer.awaitExit(30), sprayer.transcript());
                assertEquals(0, Worker.field(result, "errors"), sprayer.transcript());
                hot += Worker.field(result, "hotAdmitted");
                authRefused += Worker.field(result, "authRefused");
                maxHeap = Math.max(maxHeap, Worker.field(result, "heapBytes"));
            }
            final long fileAfter = Files.size(file);
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(CAPACITY).build()))
            {
                final Stats stats = gate.stats();
                System.out.printf("FULL capacity=%d sprayed=%d tableFull=%d authRefusedWhileFull=%d reaped=%d " +
                    "entries=%d fileBytes=%d->%d maxHeapMiB=%.1f%n", CAPACITY, 3L * perJvm, stats.tableFullEvents(),
                    authRefused, stats.reaped(), stats.entries(), fileBefore, fileAfter, maxHeap / 1048576.0);
                assertEquals(HOT_LIMIT, hot, "the legitimate hot key stayed exact throughout");
                assertTrue(stats.tableFullEvents() > 0, "the table did fill: " + stats);
                assertTrue(authRefused > 0, "AUTH fails closed when full");
                assertTrue(stats.reaped() > 0, "idle entries were reclaimed first: " + stats);
                assertTrue(stats.entries() + stats.tombstoned() <= CAPACITY + 64, "entries stay bounded: " + stats);
                assertTrue(fileAfter <= fileBefore * 2, "the file stays bounded: " + fileBefore + " -> " + fileAfter);
                assertTrue(maxHeap < 96L << 20, "the heap stays bounded: " + maxHeap);
            }
        }
        finally
        {
            sprayers.forEach(ChildJvm::close);
        }
    }
}
