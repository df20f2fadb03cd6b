package dev.floodgate;

import java.util.Arrays;
import java.util.Locale;

/**
 * What is being limited. Each action has its own limit and window, keyed by its configuration prefix.
 *
 * <p>{@link #AUTH} and {@link #DASHBOARD_AUTH} are security controls: they can never be switched off by a
 * limit of 0, and when the table cannot take a new key they refuse rather than admit.
 */
public enum Action
{
    /** TCP authentication attempts, per IP. */
    AUTH(10, 60_000, true),
    /** Dashboard logins and dashboard tokens that do not validate, per IP. */
    DASHBOARD_AUTH(10, 60_000, true),
    /** Authenticated dashboard requests, per session (keyed by {@link Floodgate#sessionDigest}). */
    DASHBOARD_API(300, 60_000, false),
    /** Produce requests, per authenticated user. Off (limit 0) unless configured. */
    PUBLISH(0, 1_000, false),
    /** Subscribe requests, per authenticated user. Off (limit 0) unless configured. */
    SUBSCRIBE(0, 60_000, false);

    private static final Action[] VALUES = values();
    /** The names {@link #parse} takes, as it spells them in its errors. */
    private static final String[] NAMES = Arrays.stream(VALUES).map(Action::configPrefix).toArray(String[]::new);

    private final long defaultLimit;
    private final long defaultWindowMs;
    private final boolean securityControl;
    private final String configPrefix;

    Action(final long defaultLimit, final long defaultWindowMs, final boolean securityControl)
    {
        this.defaultLimit = defaultLimit;
        this.defaultWindowMs = defaultWindowMs;
        this.securityControl = securityControl;
        this.configPrefix = name().toLowerCase(Locale.ROOT);
    }

    /** @return the limit used when none is configured. */
    public long defaultLimit()
    {
        return defaultLimit;
    }

    /** @return the window used when none is configured, in milliseconds. */
    public long defaultWindowMs()
    {
        return defaultWindowMs;
    }

    /**
     * @return true for the login controls: they cannot be switched off, and they fail closed (refuse) when
     * the table is full or unusable.
     */
    public boolean isSecurityControl()
    {
        return securityControl;
    }

    /** @return the configuration key prefix, e.g. {@code dashboard_api} for {@code dashboard_api_rate_limit}. */
    public String configPrefix()
    {
        return configPrefix;
    }

    /**
     * @param ordinal an action's ordinal, as stored in the file.
     * @return the action.
     * @throws IllegalArgumentException if no action has that ordinal.
     */
    public static Action fromOrdinal(final int ordinal)
    {
        if (ordinal < 0 || ordinal >= VALUES.length)
        {
            throw new IllegalArgumentException("no action has ordinal " + ordinal);
        }
        return VALUES[ordinal];
    }

    /**
     * Parses an action name as an operator types it: {@code publish}, {@code PUBLISH} or {@code dashboard-api}.
     *
     * @param text the name.
     * @return the action.
     * @throws IllegalArgumentException naming the text, the name it probably misspells (one at most two edits away:
     * {@code publsh}, did you mean {@code publish}?) and the accepted names.
     */
    public static Action parse(final String text)
    {
        String meant = "";
        if (text != null)
        {
            final String normal = text.trim().replace('-', '_').toUpperCase(Locale.ROOT);
            for (final Action action : VALUES)
            {
                if (action.name().equals(normal))
                {
                    return action;
                }
            }
            meant = KeySpelling.didYouMean(normal, NAMES);
        }
        throw new IllegalArgumentException("unknown action '" + text + "'" + meant + ": expected one of " +
            String.join(", ", NAMES));
    }
}
