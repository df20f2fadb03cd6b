package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SmokeTest
{
    @TempDir
    Path dir;

    @Test
    void shouldAdmitExactlyTheLimitInBothDoors()
    {
        final ManualTicker ticker = new ManualTicker(1_000_000_000_000L);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("t.map")).capacity(1000)
            .limit(Action.PUBLISH, 5, 1000).ticker(ticker).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            int admitted = 0;
            for (int i = 0; i < 20; i++)
            {
                if (gate.checkLimit("alice", Action.AUTH) == Floodgate.ADMITTED)
                {
                    admitted++;
                }
            }
            assertEquals(10, admitted);
            admitted = 0;
            for (int i = 0; i < 20; i++)
            {
                if (gate.checkLimitInCaller("bob", Action.PUBLISH) == Floodgate.ADMITTED)
                {
                    admitted++;
                }
            }
            assertEquals(5, admitted);
            assertEquals(10, gate.blockedCount("alice", Action.AUTH));
            assertEquals(15, gate.blockedCount("bob", Action.PUBLISH));
            System.out.println(gate.stats());
            assertTrue(gate.checkLimit("alice", Action.AUTH) >= 5999);
        }
    }
}
