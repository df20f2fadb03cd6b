package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code floodgate policy}: shows the node's policy, the one every JVM mapping the file enforces;
 * {@link PolicySetCommand} changes it.
 */
@Command(name = "policy", mixinStandardHelpOptions = true, subcommands = {PolicySetCommand.class, HelpCommand.class},
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
        else if (policy.generation() == 0)
        {
            // a table made but never opened (Floodgate.createFile): its zeros are no limits, not limits switched off
            out.println("generation 0: no policy yet (the first JVM to open the table publishes its configuration)");
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
}
