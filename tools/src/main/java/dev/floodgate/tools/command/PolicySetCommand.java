package dev.floodgate.tools.command;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code floodgate policy set publish.limit=1000 publish.window_ms=1000}: publishes the file's policy with the
 * keys the user named changed, validated as the configuration is; every JVM enforces it from its next check.
 * Everything else comes from the file, never from this JVM's defaults, and a change to nothing publishes
 * nothing. An action it leaves off whose cluster quota the table shows in force gets a note on standard error
 * ({@link ClusterQuotaNote}).
 */
@Command(name = "set", mixinStandardHelpOptions = true,
    description = {"Publishes a changed policy: bucket changes apply at once (tokens already spent stay " +
        "spent), window changes from the next window.", "Keys: limit, window_ms, mode (enforce|shadow). " +
        "Example: policy set publish.limit=1000 publish.window_ms=1000", "A limit of 0 switches the node's " +
        "quota off, not a cluster quota a broker is configured with: when the table holds that action's cluster " +
        "leases, a note on standard error says so and names the broker key that lifts it (exit code unchanged)."})
public final class PolicySetCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Parameters(arity = "1..*", paramLabel = "ACTION.KEY=VALUE",
        description = "What to change, e.g. publish.limit=1000, auth.window_ms=60000, publish.mode=shadow.")
    private List<String> assignments;

    @Override
    public Integer call()
    {
        final Path file = fileOption.file();
        TableFiles.requireExisting(file);
        refuseBadAssignments(file);
        WriteAccess.require(file, "the policy was not changed");
        final PrintWriter out = spec.commandLine().getOut();
        final FloodgatePolicy inForce;
        try (Floodgate gate = Floodgate.openAdopting(FloodgateConfig.builder().file(file).preTouch(false).build()))
        {
            final FloodgatePolicy before = gate.policy();
            final FloodgateConfig changed;
            try
            {
                changed = FloodgatePolicy.withAssignments(before.applyTo(gate.config()), assignments);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CliException(ExitCode.USAGE, ex.getMessage());
            }
            if (FloodgatePolicy.of(changed).rules().equals(before.rules()))
            {
                out.println("policy unchanged: nothing published, still generation " + before.generation());
                out.print(before.describe());
                inForce = before;
            }
            else
            {
                final FloodgatePolicy after = gate.reconfigure(changed);
                out.println("published generation " + after.generation() + ": " +
                    String.join(", ", before.differences(after)));
                out.print(after.describe());
                inForce = after;
            }
        }
        catch (final FloodgateFileException ex)
        {
            throw WriteAccess.openProblem(file, ex, "the policy was not changed");
        }
        out.flush();
        ClusterQuotaNote.print(file, ClusterQuotaNote.offByName(inForce, assignments), spec.commandLine().getErr(),
            spec.qualifiedName());
        return ExitCode.OK;
    }

    /**
     * Checks the change against the file's policy, read-only, before anything opens the table to write it: a
     * refused change leaves the file as it was (opening it attaches this process), and a typo is named before
     * a missing write permission. The change is checked again against the policy in force when it is published.
     */
    private void refuseBadAssignments(final Path file)
    {
        final FloodgatePolicy current;
        try (FloodgateReader reader = TableFiles.openReader(file))
        {
            current = reader.policy();
        }
        try
        {
            if (current.generation() == 0)
            {
                // each value against its key's range, as below: a typo is named before the want of a policy
                FloodgatePolicy.checkAssignments(assignments);
                throw WriteAccess.noPolicyYet(file, "the policy was not changed");
            }
            else
            {
                FloodgatePolicy.withAssignments(current.applyTo(FloodgateConfig.builder().file(file).build()),
                    assignments);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException(ExitCode.USAGE, ex.getMessage());
        }
    }
}
