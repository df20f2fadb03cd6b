package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/**
 * A child JVM's probe (for {@code ProbeMovingGenerationTest}, which debugs it): opens the table with an
 * {@code AUTH} quota of 10 a minute, probes the identifier's bucket (or its window) once and prints
 * {@code PROBE limit remaining retryAfterMs resetMs}.
 *
 * <p>Arguments: table path, identifier, optionally {@code window}.
 */
public final class BucketProber
{
    private BucketProber()
    {
    }

    public static void main(final String[] args)
    {
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000)
            .cleanupIntervalMs(3_600_000).limit(Action.AUTH, 10, 60_000).build()))
        {
            final dev.floodgate.Probe probe = args.length > 2 && args[2].equals("window") ?
                gate.probeInCaller(args[1], Action.AUTH) : gate.probe(args[1], Action.AUTH);
            System.out.println("PROBE " + probe.limit() + " " + probe.remaining() + " " + probe.retryAfterMs() + " " +
                probe.resetMs());
        }
    }
}
