package dev.floodgate.reader;

import java.util.Locale;

/** The kinds of quota entry. */
public enum EntryKind
{
    /** A token bucket of {@code checkLimit}. */
    BUCKET,
    /** A sharded window of {@code checkLimitInCaller}. */
    WINDOW,
    /** A blocked counter: refusals of one identifier and action. */
    BLOCKED,
    /** A node's lease of a cluster quota's tokens (issue 12): the balance leased and not yet spent. */
    LEASE;

    private final String label = name().toLowerCase(Locale.ROOT);

    /** @return the lower-case name tools print and accept. */
    public String label()
    {
        return label;
    }

    /**
     * @param text {@code bucket}, {@code window} or {@code blocked}, any case.
     * @return the kind.
     * @throws IllegalArgumentException naming the accepted names.
     */
    public static EntryKind parse(final String text)
    {
        for (final EntryKind kind : values())
        {
            if (kind.label.equalsIgnoreCase(text.trim()))
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown kind '" + text +
            "': expected one of bucket, window, blocked, lease");
    }
}
