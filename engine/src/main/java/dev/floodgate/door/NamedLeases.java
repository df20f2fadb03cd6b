package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.LeaseWords;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The file's leases that can be named to Redis without a JVM that saw their identifier, for the node's last close
 * ({@link LeaseGiveBack#giveBackAll}). The table's keys are hashes under the file's secret, but an entry's label
 * holds its identifier's first 48 UTF-8 bytes: when the key hashed from the label is the entry's own key, the
 * label is the whole identifier (an IP, a user name, a session digest); a longer identifier cannot be named, nor
 * a lease of an action this JVM has no cluster quota for (its siblings' configuration may differ). Stateless.
 */
final class NamedLeases
{
    /** A lease entry of the file with a balance, and the identifier its label holds whole. */
    record Named(int kindAction, Action action, String identifier)
    {
        /** @return its slot in this process, resolved by name; null when the table could not give it in time. */
        QuotaSlot resolve(final Doors doors)
        {
            return doors.slot(identifier, QuotaCache.hash(identifier), kindAction, action, null, Doors.ANY_VERSION);
        }
    }

    private NamedLeases()
    {
    }

    /**
     * Scans a copy of each segment (its guard held only while copying).
     *
     * @param doors the doors, whose table is scanned.
     * @return the file's lease entries with a balance whose label is their whole identifier (the key says so);
     * those found before a segment busy beyond the tools' guard wait ended the scan.
     */
    static List<Named> of(final Doors doors)
    {
        final List<Named> named = new ArrayList<>();
        try
        {
            scan(doors, named);
        }
        catch (final RuntimeException ex)
        {
            // a segment held by a stopped process: the leases not found stay in the file
        }
        return named;
    }

    private static void scan(final Doors doors, final List<Named> named)
    {
        final KeyHasher hasher = doors.table().hasher();
        final Entry entry = new Entry();
        doors.table().scans().forEachEntry((key, value) ->
        {
            entry.wrap(value);
            if (entry.kind() != Entry.KIND_LEASE || LeaseWords.balanceVolatile(entry) <= 0 ||
                entry.isTombstonedVolatile() || !doors.clustered(entry.action()))
            {
                return; // an action this JVM has no cluster quota for: it has no limit to send with a refund
            }
            final String label = entry.label();
            final Action action = entry.action();
            if (label.length() == entry.identifierLength() &&
                Arrays.equals(hasher.key(label, action, Entry.KIND_LEASE), key))
            {
                named.add(new Named(ClusterGate.KIND | action.ordinal(), action, label));
            }
        });
    }
}
