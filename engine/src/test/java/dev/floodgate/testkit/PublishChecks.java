package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;

/** Window checks of one user's publishes, as the policy tests make them: user {@code u}, in the caller's thread. */
public final class PublishChecks
{
    private PublishChecks()
    {
    }

    /** @return how many of {@code attempts} checks of u's PUBLISH window were admitted. */
    public static int admitted(final Floodgate gate, final int attempts)
    {
        int admitted = 0;
        for (int i = 0; i < attempts; i++)
        {
            admitted += gate.checkLimitInCaller("u", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        }
        return admitted;
    }
}
