package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseLines;
import dev.floodgate.store.Resolved;

/**
 * This process's handle on one entry: where its value is mapped, the generation it had when it was
 * resolved and, for a bucket, the arithmetic of the units its TAT word is in and the policy version of
 * those units. Immutable.
 *
 * <p>The address is only trusted while {@code entry.isCurrentAcquire(generation)}: the janitor
 * changes the generation before an entry's memory can ever be reused (see {@code Janitor}), and a bucket's
 * conversion to new units changes it before it rewrites the word.
 */
public final class QuotaSlot
{
    final String identifier;
    final int hash;
    final int kindAction;
    /** The flyweight over the entry's memory: one per slot, made on the cold path, never per check. */
    final Entry entry;
    final long generation;
    final long version;
    final TokenBucket bucket;
    /** For a lease entry: its balance lines and generation by address, for the warm spend; null for other kinds. */
    final LeaseLines lines;
    /**
     * For a lease entry: the tokens a balance line takes from the central balance at a time
     * ({@link LeaseBalance#chunk}, of this JVM's lease size and the entry's lines), or 0 when the spend keeps to the
     * central balance; made once here, so the warm spend tests one field instead of loading the lease size.
     */
    final long chunk;
    /**
     * The slot of this entry's lease entry (issue 12: the same identifier and action's cluster balance), linked by
     * the first clustered check, so a warm clustered check spends from it without a second lookup. Racy by design,
     * as {@link HeldQuota}'s slots: a slot is immutable but this link, published by a plain store; a thread that
     * reads none looks the lease up, and one that reads a reclaimed one finds its generation changed and resolves.
     */
    QuotaSlot lease;
    /**
     * For a lease entry's slot: start a refill when the balance falls below this many tokens; 0 until a refill
     * measured how fast the node spends (then half a lease is the rule). Written by this process's refills.
     */
    volatile long refillBelow;

    /**
     * @param lease for a lease entry, this JVM's lease size of the action ({@link ClusterGate#leaseSize}); else
     *              ignored.
     */
    QuotaSlot(final String identifier, final int hash, final int kindAction, final Resolved resolved,
        final long lease)
    {
        this.identifier = identifier;
        this.hash = hash;
        this.kindAction = kindAction;
        this.entry = resolved.entry();
        this.generation = resolved.generation();
        this.version = resolved.version();
        final byte kind = (byte)(kindAction >>> 8);
        this.bucket = kind == Entry.KIND_BUCKET && TokenBucket.fits(resolved.limit(), resolved.windowMs()) ?
            new TokenBucket(resolved.limit(), resolved.windowMs()) : null;
        this.lines = kind == Entry.KIND_LEASE ? new LeaseLines(entry) : null;
        this.chunk = lines != null ? LeaseBalance.chunk(lease, lines.count()) : 0;
    }

    boolean matches(final CharSequence id, final int h, final int ka)
    {
        return kindAction == ka && (identifier == id || hash == h && identifier.contentEquals(id));
    }

    boolean isCurrent()
    {
        return entry.isCurrentAcquire(generation);
    }
}
