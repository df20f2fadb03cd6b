package dev.floodgate;

/**
 * How often one identifier was refused for one action.
 *
 * @param identifier the identifier's label as stored in the file (cut to 48 UTF-8 bytes, a lone surrogate taking
 *                   three).
 * @param count      refusals since the counter was created or reset.
 */
public record BlockedEntry(String identifier, long count)
{
}
