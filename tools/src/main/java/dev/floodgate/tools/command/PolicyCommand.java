package dev.floodgate.tools.command;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.FloodgateFileException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code floodgate policy}: shows the node's policy, the one every JVM mapping the file enforces;
 * {@link PolicySetCommand} changes it.
 */
@Command(name = "policy", mixinStandardHelpOptions = true, subcommands = PolicySetCommand.class,
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
}
