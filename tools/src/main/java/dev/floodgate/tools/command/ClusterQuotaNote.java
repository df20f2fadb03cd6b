package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.FloodgateKeys;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.table.TableFiles;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code policy set} tells the operator when it leaves an action's node quota off (limit 0) while the table
 * shows that the node's brokers enforce a cluster quota for it: the cluster quota is each broker JVM's own
 * configuration, which no policy lifts ("off" on the node means "the cluster's alone"), so an operator who switched
 * a limit off in an incident would otherwise believe it lifted while checks are still refused by the cluster.
 *
 * <p>The evidence is the table's lease entries of that action, counted by the read-only reader
 * ({@link FloodgateReader#countLeases}): only a JVM configured with a cluster quota for the action makes one, and
 * one stays until the janitor drops it a day after its last refill. The file does not hold the brokers'
 * configuration, so the note says what those JVMs do, and says "may" of the refusals: a broker restarted since
 * without the cluster keys leaves its leases behind. An action with no lease entry gets no note: no guess.
 *
 * <p>Stateless. A note is advice, never a failure: the exit code stays the command's.
 */
final class ClusterQuotaNote
{
    private ClusterQuotaNote()
    {
    }

    /**
     * @param inForce     the policy the command left in force (published, or unchanged).
     * @param assignments the command's assignments, already validated.
     * @return the actions whose limit the assignments name and the policy has off: switched off by the command, or
     * already off and named again (the operator's intent is the same, and so is what stays enforced).
     */
    static List<Action> offByName(final FloodgatePolicy inForce, final List<String> assignments)
    {
        final Map<String, String> named = FloodgatePolicy.parseAssignments(assignments);
        final List<Action> off = new ArrayList<>();
        for (final Action action : Action.values())
        {
            if (inForce.rule(action).limit() == 0 && named.containsKey(FloodgateKeys.limitKey(action)))
            {
                off.add(action);
            }
        }
        return off;
    }

    /**
     * Prints one line per action of {@code off} that the table holds lease entries of; nothing for the others.
     *
     * @param file    the table, mapped read-only here.
     * @param off     actions whose node quota the command left off ({@link #offByName}).
     * @param err     standard error.
     * @param command the command's name, the prefix of every line it prints there.
     */
    static void print(final Path file, final List<Action> off, final PrintWriter err, final String command)
    {
        if (off.isEmpty())
        {
            return; // no walk of the table for a change that switched nothing off
        }
        final Map<Action, Long> leases;
        try (FloodgateReader reader = TableFiles.openReader(file))
        {
            leases = reader.countLeases();
        }
        catch (final CliException | FloodgateFileException ex)
        {
            // the change is published: the reason the leases cannot be read is no failure of it
            err.println(command + ": note: could not read the table's cluster leases to tell whether a cluster " +
                "quota still limits " + names(off) + ": " + ex.getMessage());
            err.flush();
            return;
        }
        for (final Action action : off)
        {
            final long count = leases.get(action);
            if (count > 0)
            {
                err.println(command + ": " + note(action, count));
            }
        }
        err.flush();
    }

    /**
     * @param action an action whose node quota is off.
     * @param leases its live lease entries in the table, at least 1.
     * @return the note: what stays enforced and how to lift it too.
     */
    static String note(final Action action, final long leases)
    {
        final String name = ActionConverter.name(action);
        final String key = FloodgateKeys.clusterLimitKey(action);
        return "note: " + name + "'s node quota is off, but its cluster quota stays in force in every broker JVM " +
            "configured with one (cluster_redis_uri and " + key + "): this table holds " + leases + " " + name +
            (leases == 1 ? " lease" : " leases") + " such JVMs took, so " + name + " may still be refused by " +
            "the cluster quota. To lift it too, set " + key + "=0 (FLOODGATE_" + key.toUpperCase(Locale.ROOT) +
            "=0) in those brokers' configuration and restart them (the cluster keys are read at start).";
    }

    private static String names(final List<Action> actions)
    {
        return String.join(", ", actions.stream().map(ActionConverter::name).toList());
    }
}
