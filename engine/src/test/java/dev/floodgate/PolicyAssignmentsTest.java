package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

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

    private String refusal(final String... assignments)
    {
        return assertThrows(IllegalArgumentException.class,
            () -> FloodgatePolicy.withAssignments(base, List.of(assignments))).getMessage();
    }
}
