package dev.floodgate.tools.command;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.store.FloodgateFileException;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code floodgate policy}: shows the node's policy, the one every JVM mapping the file enforces;
 * {@code floodgate policy set publish.limit=1000 publish.window_ms=1000} publishes a changed one, validated as
 * the configuration is, and every JVM enforces it from its next check.
 */
@Command(name = "policy", mixinStandardHelpOptions = true, subcommands = PolicyCommand.Set.class,
    description = {"Shows the policy in the file: per action the limit, window and mode (enforce or shadow) that " +
        "every JVM mapping it enforces.", "'policy set' changes it for all of them."})
public final class PolicyCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Override
    public Integer call()
    {
        final Path file = fileOption.file();
        TableFiles.requireExisting(file);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).build()))
        {
            spec.commandLine().getOut().print(gate.policy().describe());
        }
        catch (final FloodgateFileException ex)
        {
            throw TableFiles.fileProblem(ex);
        }
        spec.commandLine().getOut().flush();
        return ExitCode.OK;
    }

    /** {@code floodgate policy set ACTION.KEY=VALUE...}. */
    @Command(name = "set", mixinStandardHelpOptions = true,
        description = {"Publishes a changed policy: bucket changes apply at once (tokens already spent stay " +
            "spent), window changes from the next window.", "Keys: limit, window_ms, mode (enforce|shadow). " +
            "Example: policy set publish.limit=1000 publish.window_ms=1000"})
    public static final class Set implements Callable<Integer>
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
            TableFiles.requireWritable(file);
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).build()))
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
                final FloodgatePolicy after = gate.reconfigure(changed);
                final List<String> changes = before.differences(after);
                spec.commandLine().getOut().println(changes.isEmpty() ? "policy unchanged" :
                    "published generation " + after.generation() + ": " + String.join(", ", changes));
                spec.commandLine().getOut().print(after.describe());
            }
            catch (final FloodgateFileException ex)
            {
                throw TableFiles.fileProblem(ex);
            }
            spec.commandLine().getOut().flush();
            return ExitCode.OK;
        }
    }
}
