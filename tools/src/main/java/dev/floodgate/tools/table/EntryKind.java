package dev.floodgate.tools.table;

import dev.floodgate.store.EntryLayout;

import java.util.Locale;

/** The three kinds of quota entry, as the CLI names them. */
public enum EntryKind
{
    /** A token bucket of {@code checkLimit}. */
    BUCKET(EntryLayout.KIND_BUCKET),
    /** A sharded window of {@code checkLimitInCaller}. */
    WINDOW(EntryLayout.KIND_WINDOW),
    /** A blocked counter. */
    BLOCKED(EntryLayout.KIND_BLOCKED);

    private final byte code;
    private final String label;

    EntryKind(final byte code)
    {
        this.code = code;
        this.label = name().toLowerCase(Locale.ROOT);
    }

    /** @return the kind byte stored in the file. */
    public byte code()
    {
        return code;
    }

    /** @return the lower-case name printed and accepted by {@code --kind}. */
    public String label()
    {
        return label;
    }

    /**
     * @param code a kind byte from the file.
     * @return the kind, or null for a byte no kind has (a damaged entry).
     */
    public static EntryKind of(final byte code)
    {
        for (final EntryKind kind : values())
        {
            if (kind.code == code)
            {
                return kind;
            }
        }
        return null;
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
        throw new IllegalArgumentException("unknown kind '" + text + "': expected one of bucket, window, blocked");
    }
}
