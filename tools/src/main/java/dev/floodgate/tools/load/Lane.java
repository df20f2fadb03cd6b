package dev.floodgate.tools.load;

import dev.floodgate.Action;

import java.util.Locale;

/**
 * One kind of traffic a load worker generates: {@code threads} threads calling one door for one action over a
 * set of keys, optionally pausing between checks (logins arrive at human pace; produce requests do not).
 *
 * @param door        which door: {@link Door#BUCKET} is {@code checkLimit}, {@link Door#WINDOW} is
 *                    {@code checkLimitInCaller}.
 * @param action      the action checked.
 * @param threads     threads in each worker JVM.
 * @param pauseMicros pause after each check, 0 for none.
 * @param keyPrefix   the identifier, or the prefix of numbered identifiers.
 * @param keyCount    1 for the identifier {@code keyPrefix} itself, else {@code keyPrefix0 .. keyPrefix(n-1)}.
 */
public record Lane(Door door, Action action, int threads, long pauseMicros, String keyPrefix, int keyCount)
{
    /** The two doors of the engine. */
    public enum Door
    {
        /** {@code Floodgate.checkLimit}: the exact token bucket. */
        BUCKET,
        /** {@code Floodgate.checkLimitInCaller}: the sharded fixed window. */
        WINDOW
    }

    /** @param index 0 to {@code keyCount - 1}. @return that key's identifier. */
    public String key(final int index)
    {
        return keyCount == 1 ? keyPrefix : keyPrefix + index;
    }

    /** @return the lane as one command-line word, parsed back by {@link #parse}. */
    public String format()
    {
        return String.join(",", door.name().toLowerCase(Locale.ROOT), action.configPrefix(),
            Integer.toString(threads), Long.toString(pauseMicros), keyPrefix, Integer.toString(keyCount));
    }

    /**
     * @param text as written by {@link #format}.
     * @return the lane.
     * @throws IllegalArgumentException when malformed.
     */
    public static Lane parse(final String text)
    {
        final String[] parts = text.split(",", -1);
        if (parts.length != 6)
        {
            throw new IllegalArgumentException("lane '" + text + "': expected door,action,threads,pauseMicros," +
                "keyPrefix,keyCount");
        }
        return new Lane(Door.valueOf(parts[0].toUpperCase(Locale.ROOT)), Action.parse(parts[1]),
            Integer.parseInt(parts[2]), Long.parseLong(parts[3]), parts[4], Integer.parseInt(parts[5]));
    }
}
