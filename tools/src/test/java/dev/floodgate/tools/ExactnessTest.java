package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.tools.load.Exactness;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exactness verdict of demo and bench: a refusal the engine counted as unreachable may leave a key short of
 * its quota (the default unreachable rule refuses), and is then not a lost admission; anything else is.
 */
class ExactnessTest
{
    private static final long LIMIT = 1_000;

    private static Exactness.Verdict check(final long admitted, final long refused, final long unreachable)
    {
        return Exactness.check(Action.PUBLISH, LIMIT, Map.of("publish key-1",
            new Exactness.KeyTotal(Action.PUBLISH, "key-1", admitted, refused)), List.of(), unreachable);
    }

    @Test
    void shouldAcceptAKeyShortOfItsQuotaByItsUnreachableRefusal()
    {
        // seen on a busy host: 14 attempts, one refused while its segment was held, counted as unreachable
        final Exactness.Verdict verdict = check(13, 1, 1);
        assertTrue(verdict.exact(), verdict::toString);
    }

    @Test
    void shouldRejectAShortfallNoUnreachableCheckAccountsFor()
    {
        final Exactness.Verdict verdict = check(13, 1, 0);
        assertFalse(verdict.exact());
        assertTrue(verdict.problems().stream().anyMatch(p -> p.contains("1 fewer than their quotas allowed")),
            verdict::toString);
    }

    @Test
    void shouldRejectAdmissionsOverTheLimitWhateverWasUnreachable()
    {
        final Exactness.Verdict verdict = check(LIMIT + 1, 5, 5);
        assertFalse(verdict.exact());
        assertEquals("publish key-1: admitted 1001, quota allows 1000", verdict.problems().get(0));
    }
}
