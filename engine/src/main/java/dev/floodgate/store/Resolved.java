package dev.floodgate.store;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * An entry's value located in this process's mapping of the file.
 *
 * @param buffer     wraps the value; valid while the entry's generation word still equals {@code generation}.
 * @param generation the entry's generation when it was resolved.
 * @param limit      the limit the entry was created under.
 * @param windowMs   the window the entry was created under.
 * @param version    the policy version the entry's units (limit, window) belong to.
 */
public record Resolved(UnsafeBuffer buffer, long generation, long limit, long windowMs, long version)
{
}
