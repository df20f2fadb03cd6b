package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.PolicyWorker;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The policy across real JVMs: one quota whatever each was configured with, and live reconfiguration. */
@Timeout(240)
class PolicyMultiProcessTest
{
    private static final long WEEK_MS = FloodgateConfig.MAX_WINDOW_MS;

    @TempDir
    Path dir;

    @Test
    void shouldConvergeOnOneExactQuotaWhenJvmsStartWithDifferentLimitsAndCountEveryCheck() throws Exception
    {
        final Path file = dir.resolve("converge.map");
        final Path go = dir.resolve("go");
        final long[] limits = {300, 2_000};
        final long weekBefore = Math.floorDiv(System.nanoTime() / 1_000_000L, WEEK_MS);
        final List<ChildJvm> children = new ArrayList<>();
        try
        {
            for (final long limit : limits)
            {
                children.add(ChildJvm.start(PolicyWorker.class, file.toString(), "window", Long.toString(limit), "2",
                    "1500", go.toString()));
            }
            final List<Long> adopted = new ArrayList<>();
            for (final ChildJvm child : children)
            {
                adopted.add(Worker.field(child.awaitLine("READY", 120), "limit"));
            }
            assertEquals(adopted.get(0), adopted.get(1), "both enforce the one policy in the file");
            Files.createFile(go);
            long admitted = 0;
            long refused = 0;
            for (final ChildJvm child : children)
            {
                final String result = child.awaitLine("RESULT", 120);
                admitted += Worker.field(result, "admitted");
                refused += Worker.field(result, "refused");
                assertEquals(0, child.awaitExit(30), child.transcript());
            }
            if (Math.floorDiv(System.nanoTime() / 1_000_000L, WEEK_MS) == weekBefore)
            {
                assertEquals(adopted.get(0), admitted, "exactly the file's limit, by both JVMs together");
            }
            assertEquals(2 * 2 * 1_500, admitted + refused);
            try (Floodgate reader = Floodgate.open(FloodgateConfig.builder().file(file).capacity(10_000).build()))
            {
                final Stats.Checks checks = reader.checks().get(Action.PUBLISH);
                assertEquals(new Stats.Checks(admitted, refused, 0, 0), checks, "counters of both JVMs, folded on close");
            }
        }
        finally
        {
            children.forEach(ChildJvm::close);
        }
    }

    @Test
    void shouldEnforceAReconfigurationInAnotherJvmOnItsNextCheck() throws Exception
    {
        final Path file = dir.resolve("reconfigure.map");
        final Path go = dir.resolve("go");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(10_000)
            .limit(Action.PUBLISH, 5, WEEK_MS).build();
        try (Floodgate gate = Floodgate.open(config);
            ChildJvm child = ChildJvm.start(PolicyWorker.class, file.toString(), "bucket", "5", "2", "100",
                go.toString()))
        {
            assertEquals(5, Worker.field(child.awaitLine("READY", 120), "limit"));
            gate.reconfigure(config.toBuilder().limit(Action.PUBLISH, 50, WEEK_MS).build());
            Files.createFile(go);
            final String result = child.awaitLine("RESULT", 120);
            assertEquals(50, Worker.field(result, "admitted"), result);
            assertEquals(50, Worker.field(result, "limit"));
            assertEquals(0, child.awaitExit(30), child.transcript());
        }
    }
}
