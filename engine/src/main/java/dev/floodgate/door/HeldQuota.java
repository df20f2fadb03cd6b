package dev.floodgate.door;

import dev.floodgate.Action;

/**
 * A caller's own slots for one (identifier, action), one per door: the checks of a {@code Quota} handle use
 * them instead of this process's shared, direct-mapped cache, so a handle's warm check loads neither the cache
 * nor the identifier, and no other identifier evicts it.
 *
 * <p>Thread-safe: the slots are immutable ({@link QuotaSlot}'s fields are final) and published by plain stores.
 * A thread that reads an older slot than another thread stored finds it not current (or in older units) and
 * resolves again, as a check through the shared cache does; every write to the entry is generation-checked, so
 * a slot whose entry was reclaimed, reset or converted is never written through.
 */
public final class HeldQuota
{
    final String identifier;
    final int hash;
    final Action action;
    QuotaSlot bucket; // racy by design: see the class comment
    QuotaSlot window;

    /**
     * @param identifier who (copied).
     * @param action     what.
     */
    public HeldQuota(final CharSequence identifier, final Action action)
    {
        this.identifier = identifier.toString();
        this.hash = QuotaCache.hash(this.identifier);
        this.action = action;
    }

    /** @param kindAction the door's kind and the action. @return the handle's slot for that door, or null. */
    QuotaSlot slot(final int kindAction)
    {
        return kindAction == (BucketDoor.KIND | action.ordinal()) ? bucket : window;
    }

    /** @param kindAction the door's kind and the action. @param slot a resolved slot, or null. @return it. */
    QuotaSlot keep(final int kindAction, final QuotaSlot slot)
    {
        if (kindAction == (BucketDoor.KIND | action.ordinal()))
        {
            bucket = slot;
        }
        else
        {
            window = slot;
        }
        return slot;
    }

    /** @return the identifier. */
    public String identifier()
    {
        return identifier;
    }

    /** @return the action. */
    public Action action()
    {
        return action;
    }
}
