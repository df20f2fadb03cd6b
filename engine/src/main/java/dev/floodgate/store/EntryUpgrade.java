package dev.floodgate.store;

/** Run by {@link EntryLookup#resolve} on a located, live entry under its segment's update lock. */
@FunctionalInterface
public interface EntryUpgrade
{
    /**
     * @param value  the entry's value in the file.
     * @param header the file's record (for a new generation).
     */
    void apply(Entry value, FileHeader header);
}
