package dev.floodgate;

import java.util.Locale;

/**
 * The key a misspelt name probably meant: the one nearest it by edit distance, when that is at most
 * {@link #MAX_EDITS}. Owned here, once, for every place that meets a name it does not know: the environment's
 * {@code FLOODGATE_*} names ({@link UnknownNames}, warned about), and the keys {@code fromKeyValues},
 * {@code withPolicyKeys} and {@code floodgate policy set} refuse, and the action names {@link Action#parse}
 * refuses. Stateless.
 */
final class KeySpelling
{
    /** A name at most this many edits from a key is taken for a misspelling of it. */
    static final int MAX_EDITS = 2;

    private KeySpelling()
    {
    }

    /**
     * @return {@code " (did you mean KEY?)"} for the key {@link #closest} finds, or {@code ""} when none is that
     * close: what an error adds after the name it refuses.
     */
    static String didYouMean(final String name, final String... keys)
    {
        final String meant = closest(name, keys);
        return meant == null ? "" : " (did you mean " + meant + "?)";
    }

    /** @return the first of {@code keys} fewest edits from {@code name} (case aside), if at most MAX_EDITS. */
    static String closest(final String name, final String... keys)
    {
        final String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestEdits = MAX_EDITS + 1;
        for (final String key : keys)
        {
            final int edits = edits(lower, key);
            if (edits < bestEdits)
            {
                best = key;
                bestEdits = edits;
            }
        }
        return best;
    }

    /** @return the Levenshtein distance: insertions, deletions and substitutions turning a into b. */
    static int edits(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
