package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;

import io.lettuce.core.api.sync.RedisCommands;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads what a soak's nodes hold leased and unspent, per quota, from their tables ({@link FloodgateReader}, which
 * takes no guard), for {@link ClusterBound#held}; and, from the quota's bucket in Redis, the grants on their way: a
 * node's last request the bucket applied ({@code n:<node>} = {@code seq op amount tokens ...}) whose sequence is the
 * one its table still sends, i.e. not yet committed to a balance. One node's table is read after another's, then
 * Redis, so a sample spans a few ms (a grant applied after its node's table was read counts as on its way too,
 * which only loosens the check). Not thread-safe.
 */
public final class LeaseSampler implements AutoCloseable
{
    /**
     * A sample: the balances summed over the nodes, per quota, read between the two moments, and the grants on their
     * way to them (null when Redis was not read).
     */
    public record Sample(long fromNanos, long toNanos, long[] balances, long[] onTheirWay)
    {
    }

    private final List<FloodgateReader> readers = new ArrayList<>();
    private final String[] identifiers;
    private final Action[] actions;
    private final long[] mostOnANode;

    /** @param files the nodes' tables, which exist. */
    public LeaseSampler(final List<Path> files, final String[] identifiers, final Action[] actions)
    {
        this.identifiers = identifiers;
        this.actions = actions;
        this.mostOnANode = new long[identifiers.length];
        try
        {
            for (final Path file : files)
            {
                readers.add(FloodgateReader.open(file));
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * @param redis the test's own connection to the soak's Redis, or null while Redis is stopped.
     * @return the balances now.
     */
    public Sample sample(final RedisCommands<String, String> redis)
    {
        final long[] balances = new long[identifiers.length];
        final List<Set<Long>> sequences = new ArrayList<>(); // per quota, the sequence each node sends next
        for (int s = 0; s < identifiers.length; s++)
        {
            sequences.add(new HashSet<>());
        }
        final long from = System.nanoTime();
        for (final FloodgateReader reader : readers)
        {
            final long[] node = new long[identifiers.length];
            for (final TableEntry entry : reader.entries())
            {
                for (int s = 0; s < identifiers.length; s++)
                {
                    if (entry.kind() == EntryKind.LEASE && !entry.tombstoned() && entry.action() == actions[s] &&
                        entry.label().equals(identifiers[s]))
                    {
                        node[s] += entry.leaseBalance();
                        sequences.get(s).add(entry.leaseSequence());
                    }
                }
            }
            for (int s = 0; s < identifiers.length; s++)
            {
                balances[s] += node[s];
                mostOnANode[s] = Math.max(mostOnANode[s], node[s]);
            }
        }
        final long[] onTheirWay = redis == null ? null : onTheirWay(redis, sequences);
        return new Sample(from, System.nanoTime(), balances, onTheirWay);
    }

    /** @return per quota, the grants applied for a sequence a node still sends; null when Redis did not answer. */
    private long[] onTheirWay(final RedisCommands<String, String> redis, final List<Set<Long>> sequences)
    {
        final long[] tokens = new long[identifiers.length];
        try
        {
            for (int s = 0; s < identifiers.length; s++)
            {
                for (final Map.Entry<String, String> field : redis.hgetall("floodgate:" +
                    actions[s].configPrefix() + ":" + identifiers[s]).entrySet())
                {
                    final String[] record = field.getValue().split(" ");
                    if (field.getKey().startsWith("n:") && record[1].equals("L") &&
                        sequences.get(s).contains(Long.parseLong(record[0])))
                    {
                        tokens[s] += Long.parseLong(record[3]);
                    }
                }
            }
            return tokens;
        }
        catch (final RuntimeException ex)
        {
            return null; // a loaded host's Redis slower than the test connection's bound: no figure this time
        }
    }

    /** @return per quota, the most one node's table held in any sample so far. */
    public long[] mostOnANode()
    {
        return mostOnANode.clone();
    }

    @Override
    public void close()
    {
        readers.forEach(FloodgateReader::close);
    }
}
