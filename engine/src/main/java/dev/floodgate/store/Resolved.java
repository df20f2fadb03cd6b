package dev.floodgate.store;

/**
 * An entry's value located in this process's mapping of the file.
 *
 * @param entry      a flyweight over the value, this caller's own; valid while the entry's generation word
 *                   still equals {@code generation}.
 * @param generation the entry's generation when it was resolved.
 * @param limit      the limit the entry was created under.
 * @param windowMs   the window the entry was created under.
 * @param version    the policy version the entry's units (limit, window) belong to.
 */
public record Resolved(Entry entry, long generation, long limit, long windowMs, long version)
{
}
