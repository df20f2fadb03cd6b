package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/**
 * A child JVM started without Lettuce on its class path: opens a file (with a cluster quota when a Redis URI is
 * given), checks once, and prints {@code RESULT admitted=1}, or {@code FAILED <message>} when opening fails.
 *
 * <p>Arguments: file, Redis URI or {@code -}.
 */
public final class NoLettuceProbe
{
    private NoLettuceProbe()
    {
    }

    public static void main(final String[] args)
    {
        final FloodgateConfig.Builder builder = FloodgateConfig.builder().file(Path.of(args[0])).capacity(100)
            .limit(Action.PUBLISH, 10, 1_000);
        if (!args[1].equals("-"))
        {
            builder.clusterRedisUri(args[1]).clusterLimit(Action.PUBLISH, 5, 1_000);
        }
        try (Floodgate gate = Floodgate.open(builder.build()))
        {
            System.out.println("RESULT admitted=" + (gate.checkLimit("alice", Action.PUBLISH) == Floodgate.ADMITTED ?
                1 : 0));
        }
        catch (final IllegalStateException ex)
        {
            System.out.println("FAILED " + ex.getMessage());
        }
    }
}
