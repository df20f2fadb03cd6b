package dev.floodgate.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LocalRedis}'s signals fail the test when {@code kill} fails: it ignored {@code kill}'s exit, so a
 * {@code pause()} of a server that was gone (or not ours to signal) returned as if it had frozen it, and the test
 * went on measuring a "stalled" Redis that was never stalled (found by review; {@code pause()} returned before).
 */
@Timeout(120)
class LocalRedisSignalTest
{
    @Test
    void shouldFailAPauseThatSignalledNothing() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            redis.kill9(); // the server is gone: SIGSTOP has no process to go to
            final AssertionError failed = assertThrows(AssertionError.class, redis::pause,
                "pause() of a server that is gone returned as if it had frozen it");
            assertTrue(failed.getMessage().contains("kill -STOP"), failed.getMessage());
            assertThrows(AssertionError.class, redis::resume, "resume() of a server that is gone returned");
        }
    }
}
