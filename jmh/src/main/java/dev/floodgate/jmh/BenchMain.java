package dev.floodgate.jmh;

import dev.floodgate.JvmFlags;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The jar's entry point: JMH's own command line, with the engine's JVM flags ({@link JvmFlags#required()})
 * appended to every fork so that Chronicle Map and Agrona work there, and {@code floodgate.*} system properties
 * passed on. Options of its own, before JMH's:
 * <ul>
 * <li>{@code --threads 1,2,4,64}: run the selection once per thread count (JMH's {@code -t} takes one);</li>
 * <li>{@code --out DIR}: write {@code results.json} (JMH's format, every run), {@code results.tsv},
 * {@code throughput.tsv} and {@code perf.md} (see {@link Report}) there.</li>
 * </ul>
 * Listing and help ({@code -l}, {@code -h}, {@code -lprof}) go straight to JMH.
 */
public final class BenchMain
{
    private BenchMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        int[] threads = null;
        Path out = null;
        final List<String> jmhArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals("--threads") && i + 1 < args.length)
            {
                threads = Arrays.stream(args[++i].split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
            }
            else if (args[i].equals("--out") && i + 1 < args.length)
            {
                out = Path.of(args[++i]);
            }
            else
            {
                jmhArgs.add(args[i]);
            }
        }

        final CommandLineOptions cmd = new CommandLineOptions(jmhArgs.toArray(new String[0]));
        if (cmd.shouldHelp() || cmd.shouldList() || cmd.shouldListWithParams() || cmd.shouldListProfilers() ||
            cmd.shouldListResultFormats())
        {
            org.openjdk.jmh.Main.main(jmhArgs.toArray(new String[0]));
            return;
        }

        final List<String> forkArgs = new ArrayList<>(JvmFlags.required());
        System.getProperties().stringPropertyNames().stream()
            .filter(name -> name.startsWith("floodgate."))
            .sorted()
            .forEach(name -> forkArgs.add("-D" + name + "=" + System.getProperty(name)));
        if (cmd.getJvmArgsAppend().hasValue())
        {
            forkArgs.addAll(cmd.getJvmArgsAppend().get());
        }

        final List<RunResult> results = new ArrayList<>();
        for (final int t : threads == null ? new int[] {0} : threads)
        {
            final ChainedOptionsBuilder options = new OptionsBuilder().parent(cmd)
                .jvmArgsAppend(forkArgs.toArray(new String[0]));
            if (t > 0)
            {
                options.threads(t);
            }
            results.addAll(new Runner(options.build()).run());
        }

        if (out != null)
        {
            Files.createDirectories(out);
            ResultFormatFactory.getInstance(ResultFormatType.JSON, out.resolve("results.json").toString())
                .writeOut(results);
            final Report report = new Report(results);
            Files.writeString(out.resolve("results.tsv"), report.tsv(), StandardCharsets.UTF_8);
            Files.writeString(out.resolve("throughput.tsv"), report.throughputTsv(), StandardCharsets.UTF_8);
            final String markdown = report.markdown();
            Files.writeString(out.resolve("perf.md"), markdown, StandardCharsets.UTF_8);
            System.out.println();
            System.out.println(markdown);
        }
        if (results.isEmpty())
        {
            throw new IOException("no benchmark produced a result");
        }
    }
}
