package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.Action;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.tools.load.Exactness;
import dev.floodgate.tools.load.Lane;
import dev.floodgate.tools.load.LoadRun;
import dev.floodgate.tools.load.ScratchTable;
import dev.floodgate.tools.load.WindowAlignment;
import dev.floodgate.tools.load.WorkerProcess;
import dev.floodgate.tools.table.EntrySnapshot;
import dev.floodgate.tools.table.TableSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Readers do not disturb writers: dump and stats loop against a table that two other JVMs hammer, and neither
 * side sees an error, and the writers' own counts come out exactly at the quotas with every refusal counted.
 */
class LoadTest
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long WINDOW_MS = 3_600_000L;
    private static final long PUBLISH_LIMIT = 5_000_000L;
    private static final long AUTH_LIMIT = 10L;

    @TempDir
    Path dir;

    @Test
    void dumpUnderLoadCausesNoErrorsAndNoLostCounts() throws Exception
    {
        final Path file = dir.resolve("load.map");
        final long durationNs = TimeUnit.SECONDS.toNanos(3);
        final WindowAlignment alignment = new WindowAlignment(WINDOW_MS, durationNs);
        try (ScratchTable scratch = ScratchTable.create(file, 10_000, "floodgate-loadtest-"))
        {
            final List<String> args = List.of("--file", file.toString(), "--capacity", "10000",
                "--lane", new Lane(Lane.Door.WINDOW, Action.PUBLISH, 2, 0, "alice", 1).format(),
                "--lane", new Lane(Lane.Door.BUCKET, Action.AUTH, 1, 0, "10.1.1.", 3).format(),
                "--limit", "publish=" + PUBLISH_LIMIT + "/" + WINDOW_MS, "--limit", "auth=" + AUTH_LIMIT + "/" + WINDOW_MS);
            final StringWriter progress = new StringWriter();
            final long[] window = new long[2];
            final CompletableFuture<List<WorkerProcess>> run = CompletableFuture.supplyAsync(() -> LoadRun.run(2,
                List.of("-Xmx128m", "-XX:+UseSerialGC"), args, scratch.dir(), durationNs, earliest ->
                {
                    window[0] = alignment.applyAsLong(earliest);
                    window[1] = window[0] + durationNs;
                    return window[0];
                }, new PrintWriter(progress)));
            int dumps = 0;
            int sawPartial = 0;
            while (!run.isDone())
            {
                final Cli.Result dump = Cli.run("dump", "--file", file.toString(), "--json");
                assertEquals(0, dump.code(), dump::toString);
                assertEquals("", dump.err());
                for (final JsonNode entry : JSON.readTree(dump.out()))
                {
                    final long used = entry.path("used").asLong(-1);
                    if (used > 0 && used < PUBLISH_LIMIT)
                    {
                        sawPartial++; // this copy was taken while the writers were admitting
                    }
                }
                final Cli.Result stats = Cli.run("stats", "--file", file.toString());
                assertEquals(0, stats.code(), stats::toString);
                dumps++;
            }
            final List<WorkerProcess> workers = run.get(150, TimeUnit.SECONDS);
            assertTrue(dumps > 0 && sawPartial > 0, "dumps " + dumps + ", during the run " + sawPartial);
            final List<EntrySnapshot> entries;
            try (QuotaTable table = QuotaTable.open(file, 1, 1, false, System.nanoTime()))
            {
                entries = TableSnapshot.entries(table);
            }
            final var totals = Exactness.merge(workers);
            final Exactness.Verdict publish = Exactness.check(Action.PUBLISH, PUBLISH_LIMIT, totals, entries);
            final Exactness.Verdict auth = Exactness.check(Action.AUTH, AUTH_LIMIT, totals, entries);
            assertEquals(alignment.windowNumber(window[0]), alignment.windowNumber(window[1]));
            assertTrue(publish.exact(), publish::toString);
            assertTrue(auth.exact(), auth::toString);
            assertEquals(3, auth.keys());
            assertEquals(3 * AUTH_LIMIT, auth.admitted());
            assertEquals(publish.refused(), publish.blocked());
            assertEquals(auth.refused(), auth.blocked());
            assertTrue(progress.toString().contains("running"), progress.toString());
        }
        assertFalse(Files.exists(file), "the scratch table is removed");
    }
}
