package dev.floodgate.reader;

/**
 * A table file's identity, fixed when it was created.
 *
 * @param formatVersion the file's format version.
 * @param shards        window shards per entry.
 * @param capacity      entries the file was sized for.
 * @param createdWallMs creation time, wall clock (display only).
 * @param bootId        the host boot the file belongs to.
 * @param fileBytes     the file's size when the reader mapped it.
 */
public record FileIdentity(int formatVersion, int shards, long capacity, long createdWallMs, String bootId,
    long fileBytes)
{
}
