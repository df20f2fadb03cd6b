package dev.floodgate.door;

import java.util.function.LongPredicate;

/**
 * Who may hold a lease entry's refill word: this process's name in it, and how to tell whether the holder a word
 * names is still alive (the process registry's kernel locks: a pid means nothing across a pod's pid namespaces).
 * A fetcher killed mid-refill is thus taken over once its word is older than a check's wait, instead of after the
 * takeover bound. Immutable.
 *
 * @param self  this process's name, at most {@link LeaseRefill#HOLDER_BITS} bits.
 * @param alive whether the holder a name stands for is alive; may be a system call.
 */
record RefillHolders(long self, LongPredicate alive)
{
    RefillHolders
    {
        if (self < 0 || self >>> LeaseRefill.HOLDER_BITS != 0)
        {
            throw new IllegalArgumentException("holder " + self + ": expected at most " + LeaseRefill.HOLDER_BITS +
                " bits");
        }
    }
}
