package dev.floodgate.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a failed connection's warning says ({@link RedisConnector#reason}): the failure and its innermost cause's
 * message, which is where Lettuce puts Redis's own answer. A cause chain that loops (Throwable allows A -> B -> A)
 * must not hang the thread that logs it: the connector's, whose retries would stop for good (found by review: the
 * walk to the innermost cause had no bound).
 */
class ConnectFailureReasonTest
{
    @Test
    void shouldNameTheInnermostCausesMessage()
    {
        final Exception failure = new Exception("Unable to connect to 127.0.0.1:6379",
            new IllegalStateException("wrapped", new Exception("ERR DB index is out of range")));
        assertEquals(failure + ": ERR DB index is out of range", RedisConnector.reason(failure));
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldEndOnACauseChainThatLoops()
    {
        final Exception first = new Exception("first");
        final Exception second = new Exception("second", first);
        first.initCause(second);
        final String reason = RedisConnector.reason(first);
        assertTrue(reason.startsWith(first.toString()), reason);
    }
}
