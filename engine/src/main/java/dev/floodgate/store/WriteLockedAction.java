package dev.floodgate.store;

/** Called with an entry's value under its segment's guard and write lock ({@link EntryLocks#withWriteLock}). */
@FunctionalInterface
public interface WriteLockedAction
{
    /**
     * @param value the entry's value in the file.
     * @return true to remove the entry.
     */
    boolean apply(Entry value);
}
