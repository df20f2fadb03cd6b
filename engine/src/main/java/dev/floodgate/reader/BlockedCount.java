package dev.floodgate.reader;

import dev.floodgate.Action;

/**
 * One blocked counter a {@link BlockedRanking} kept: an identifier's refusals for one action, as one walk read them.
 *
 * @param action           the action.
 * @param label            the identifier's first bytes as stored, as text (as {@link TableEntry#label}):
 *                         attacker-chosen, escape before printing.
 * @param identifierLength the identifier's length in chars; longer than the label when it was cut.
 * @param blocked          refusals counted (the sum of the counter's stripes, each read atomically).
 */
public record BlockedCount(Action action, String label, int identifierLength, long blocked)
{
    /** @return true when the stored label is a prefix of a longer identifier. */
    public boolean labelCut()
    {
        return identifierLength > label.length();
    }
}
