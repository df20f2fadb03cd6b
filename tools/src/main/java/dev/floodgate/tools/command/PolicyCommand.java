package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.store.FloodgateFileException;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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

    @Option(names = "--json", description = "One JSON object: the generation and, per action, limit, " +
        "windowMs and mode.")
    private boolean json;

    @Override
    public Integer call()
    {
        final FloodgatePolicy policy;
        // Read-only: opening a Floodgate here would register a process, run a janitor and, with
        // FLOODGATE_POLICY=publish in the environment, publish this CLI's default configuration.
        try (FloodgateReader reader = TableFiles.openReader(fileOption.file()))
        {
            policy = reader.policy();
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (json)
        {
            out.println(json(policy));
        }
        else
        {
            out.print(policy.describe());
        }
        out.flush();
        return ExitCode.OK;
    }

    /**
     * @param policy a policy.
     * @return one JSON object; field names are stable.
     */
    public static String json(final FloodgatePolicy policy)
    {
        final Json doc = new Json().beginObject().field("generation", policy.generation()).name("actions")
            .beginObject();
        for (final Action action : Action.values())
        {
            final FloodgatePolicy.Rule rule = policy.rule(action);
            doc.name(ActionConverter.name(action)).beginObject().field("limit", rule.limit())
                .field("windowMs", rule.windowMs()).field("mode", rule.mode().name().toLowerCase(Locale.ROOT))
                .endObject();
        }
        return doc.endObject().endObject().toString();
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
