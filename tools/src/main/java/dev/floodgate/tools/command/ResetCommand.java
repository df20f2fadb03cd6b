package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Escape;
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
 * {@code floodgate reset IDENTIFIER ACTION}: forgets one identifier's bucket, window and blocked count for one
 * action in every process, as {@link Floodgate#reset} does, and says what was there.
 */
@Command(name = "reset", mixinStandardHelpOptions = true,
    description = {"Clears one identifier's state for one action in every process (bucket, window and blocked " +
        "count), as Floodgate.reset does.", "Needs write access to the file: refused (exit 1) otherwise."})
public final class ResetCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Parameters(index = "0", paramLabel = "IDENTIFIER", description = "Who: an IP, a user, a session digest.")
    private String identifier;

    @Parameters(index = "1", paramLabel = "ACTION", converter = ActionConverter.class,
        description = "What: auth, dashboard_auth, dashboard_api, publish, subscribe.")
    private Action action;

    @Override
    public Integer call()
    {
        if (identifier.isEmpty())
        {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "IDENTIFIER is empty");
        }
        final Path file = fileOption.file();
        TableFiles.requireExisting(file);
        WriteAccess.require(file, "nothing was reset");
        try (FloodgateReader reader = TableFiles.openReader(file))
        {
            if (reader.policy().generation() == 0) // before anything attaches: the engine's open refuses it then
            {
                throw WriteAccess.noPolicyYet(file, "nothing was reset");
            }
        }
        final List<String> removed;
        try (Floodgate gate = Floodgate.openAdopting(FloodgateConfig.builder().file(file).preTouch(false).build()))
        {
            removed = gate.resetEntries(identifier, action);
        }
        catch (final FloodgateFileException ex)
        {
            throw WriteAccess.openProblem(file, ex, "nothing was reset");
        }
        final String who = Escape.label(identifier) + " " + ActionConverter.name(action);
        spec.commandLine().getOut().println(removed.isEmpty() ? "reset " + who + ": nothing to clear (no state)" :
            "reset " + who + ": cleared " + String.join(", ", removed));
        spec.commandLine().getOut().flush();
        return ExitCode.OK;
    }
}
