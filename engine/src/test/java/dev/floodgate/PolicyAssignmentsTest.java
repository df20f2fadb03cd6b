package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What {@code floodgate policy set} hands the engine: operator assignments, parsed and checked, no table. */
@Timeout(30)
class PolicyAssignmentsTest
{
    private final FloodgateConfig base = FloodgateConfig.builder().build();

    @Test
    void shouldTakeOnlyAsciiDigitsForANumber()
    {
        assertEquals("publish.limit='+100': expected a whole number from 0 to 4398046511103 (0 switches it off)",
            refusal("publish.limit=+100"));
        assertEquals("publish.window_ms='\u0661\u0660\u0660': expected a whole number of milliseconds from 1 to " +
            "604800000", refusal("publish.window_ms=\u0661\u0660\u0660"));
        assertEquals(100, FloodgatePolicy.withAssignments(base, List.of("publish.limit= 100 "))
            .limit(Action.PUBLISH).limit());
    }

    @Test
    void shouldRefuseAKeyAssignedTwiceNamingItInsteadOfTakingTheLast()
    {
        assertEquals("'auth.limit=6': auth.limit is already assigned by 'auth.limit=5'; expected each key once",
            refusal("auth.limit=5", "auth.limit=6"));
        assertEquals("'PUBLISH.Limit=7': PUBLISH.Limit is already assigned by 'publish.limit=5'; expected each " +
            "key once", refusal("publish.limit=5", "publish.window_ms=1000", "PUBLISH.Limit=7"));
        assertEquals("'publish.mode=shadow': publish.mode is already assigned by 'publish.mode=shadow'; expected " +
            "each key once", refusal("publish.mode=shadow", "publish.mode=shadow"));
        assertEquals(Map.of("auth_rate_limit", "5", "auth_rate_window_ms", "60000"),
            FloodgatePolicy.parseAssignments(List.of("auth.limit=5", "auth.window_ms=60000")));
    }

    /**
     * A table with no policy yet has no limits or windows to apply a change to; the change's values are checked
     * alone ({@code floodgate policy set} on such a table checked only their syntax), in the words
     * {@code withAssignments} uses for them.
     */
    @Test
    void shouldCheckEachValueAloneAsWithAPolicy()
    {
        for (final String[] change : new String[][] {{"publish.limit=-1"}, {"publish.window_ms=0"}, {"auth.limit=0"},
            {"publish.mode=bogus"}, {"subscribe.limit=abc"}, {"dashboard_auth.limit=17179869184"},
            {"auth.limit=5", "publish.window_ms=604800001"}, {"auth.limit=1031", "auth.window_ms=60000"}})
        {
            assertEquals(refusal(change), assertThrows(IllegalArgumentException.class,
                () -> FloodgatePolicy.checkAssignments(List.of(change))).getMessage(), String.join(" ", change));
        }
        // judged by the window in force, which a table with no policy has not got
        FloodgatePolicy.checkAssignments(List.of("auth.limit=1031"));
        FloodgatePolicy.checkAssignments(List.of("auth.window_ms=1000", "publish.limit=0", "publish.mode=shadow"));
        assertEquals("'publish.limt=5': unknown key 'limt' (did you mean limit?), expected limit, window_ms or mode",
            assertThrows(IllegalArgumentException.class,
                () -> FloodgatePolicy.checkAssignments(List.of("publish.limt=5"))).getMessage());
    }

    private String refusal(final String... assignments)
    {
        return assertThrows(IllegalArgumentException.class,
            () -> FloodgatePolicy.withAssignments(base, List.of(assignments))).getMessage();
    }
}
