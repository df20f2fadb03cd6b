package dev.floodgate.tools;

import dev.floodgate.tools.format.Durations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bench --help} did not say what its refusals did: {@code --keys} is 1 to 1,000,000, {@code --duration} and
 * {@code --warmup} at most 10 minutes, and which units a duration takes ({@code --warmup} named none; README said
 * {@code --cluster-window}, which runs to 7 days, took no {@code h} or {@code d}, so an hour was {@code 60m}). A
 * duration takes ms, s, m, h and d now, the help of each option says so with its bounds, and a value in no form the
 * help names is refused naming it. None of these runs reaches a worker JVM.
 */
@Timeout(60)
class BenchDurationsTest
{
    private static final String FORMS = "a whole number of ms, s, m, h or d (a bare number: seconds)";

    @TempDir
    Path dir;

    @Test
    void helpSaysTheBoundsAndUnitsTheParserHolds()
    {
        final CommandSpec bench = FloodgateCli.newCommandLine().getSubcommands().get("bench").getCommandSpec();
        assertHelp(bench, "--keys", "1 to 1,000,000", "--keys x --threads at most 4,000,000");
        assertHelp(bench, "--processes", "1 to 32");
        assertHelp(bench, "--threads", "1 to 256");
        assertHelp(bench, "--duration", "1ms to 10m", FORMS);
        assertHelp(bench, "--warmup", "1ms to 10m", FORMS);
        assertHelp(bench, "--cluster-window", "1ms to 7d", FORMS);
        final String[] units = {"ms", "s", "m", "h", "d", ""};
        final long[] nanos = {1_000_000L, TimeUnit.SECONDS.toNanos(1), TimeUnit.MINUTES.toNanos(1),
            TimeUnit.HOURS.toNanos(1), TimeUnit.DAYS.toNanos(1), TimeUnit.SECONDS.toNanos(1)};
        for (int i = 0; i < units.length; i++)
        {
            assertEquals(3 * nanos[i], Durations.parse("3" + units[i]), units[i]);
            assertEquals(3 * nanos[i], Durations.parse(" 3" + units[i].toUpperCase() + " "), units[i]);
        }
    }

    /** {@code watch --interval} takes the same forms (Durations.parse); its help named only "1s or 500ms". */
    @Test
    void watchIntervalHelpSaysTheFormsItTakes()
    {
        final CommandSpec watch = FloodgateCli.newCommandLine().getSubcommands().get("watch").getCommandSpec();
        assertHelp(watch, "--interval", FORMS);
    }

    @Test
    void benchTakesEveryUnitItsHelpNamesAndRefusesTheRestNamingTheValue()
    {
        // an hour is a duration bench reads, and is refused by its bound, not as an unknown form
        assertUsage("floodgate bench: --duration '1h': expected at most 10m", "--duration", "1h");
        assertUsage("floodgate bench: --warmup '601s': expected at most 10m", "--duration", "1s", "--warmup", "601s");
        for (final String text : new String[] {"5w", "1.5h", "5 s", "0s", "h", "-1m"})
        {
            assertUsage("floodgate bench: --duration '" + text + "': expected a positive duration, " + FORMS +
                ", e.g. 500ms, 5s, 2m or 1h", "--duration", text);
        }
        for (final String window : new String[] {"1d", "7d", "1h", "10080m"})
        {
            // accepted: refused only later, at the Redis nothing answers on port 1 (exit 1)
            final Cli.Result taken = bench("--cluster-redis", "redis://127.0.0.1:1", "--cluster-window", window);
            assertEquals(1, taken.code(), taken::toString);
            assertTrue(taken.err().contains("no Redis answers there"), taken::toString);
        }
        assertUsage("floodgate bench: --cluster-window '8d': expected 1ms to 7d (10080m)",
            "--cluster-redis", "redis://127.0.0.1:1", "--cluster-window", "8d");
        assertUsage("floodgate bench: --cluster-window '1w': expected a positive duration, " + FORMS +
            ", e.g. 500ms, 5s, 2m or 1h", "--cluster-redis", "redis://127.0.0.1:1", "--cluster-window", "1w");
    }

    private static void assertHelp(final CommandSpec command, final String option, final String... words)
    {
        final String help = String.join(" ", command.findOption(option).description());
        for (final String word : words)
        {
            assertTrue(help.contains(word), option + " help: " + help);
        }
    }

    private void assertUsage(final String error, final String... options)
    {
        final Cli.Result result = bench(options);
        assertEquals(2, result.code(), result::toString);
        assertEquals(error + " (see floodgate bench --help)\n", result.err(), result::toString);
    }

    private Cli.Result bench(final String... options)
    {
        final List<String> args = new ArrayList<>(List.of("bench", "--processes", "1", "--threads", "1", "--keys",
            "1", "--file", dir.resolve("b.map").toString()));
        args.addAll(List.of(options));
        return Cli.run(args.toArray(new String[0]));
    }
}
