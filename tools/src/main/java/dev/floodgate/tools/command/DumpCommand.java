package dev.floodgate.tools.command;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.format.Escape;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.table.EntrySnapshot;
import dev.floodgate.tools.table.EntryState;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code floodgate dump}: every entry of the table, one line each. Copies the entries segment by segment and
 * formats them after every lock is released.
 */
@Command(name = "dump", mixinStandardHelpOptions = true,
    description = {"Prints every entry of the table: kind, identifier, action, state and age.",
        "Reads without disturbing the brokers: checks on warm keys never wait for it."})
public final class DumpCommand implements Callable<Integer>
{
    private static final Comparator<EntrySnapshot> ORDER = Comparator
        .comparing((EntrySnapshot e) -> e.action().ordinal())
        .thenComparing(EntrySnapshot::label)
        .thenComparing(e -> e.kind().ordinal());

    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Mixin
    private EntryFilter filter;

    @Option(names = "--json", description = "One JSON document: an array of entry objects.")
    private boolean json;

    @Option(names = "--tombstoned", description = "Also show entries being aged out after a reset or idleness.")
    private boolean tombstoned;

    @Override
    public Integer call()
    {
        final Path file = fileOption.file();
        final List<EntrySnapshot> entries;
        try (QuotaTable table = TableFiles.openExisting(file))
        {
            entries = TableSnapshot.entries(table);
        }
        final long now = System.nanoTime();
        final List<EntrySnapshot> shown = new ArrayList<>();
        for (final EntrySnapshot entry : entries)
        {
            if ((tombstoned || !entry.tombstoned()) && filter.test(entry))
            {
                shown.add(entry);
            }
        }
        shown.sort(ORDER);
        final PrintWriter out = spec.commandLine().getOut();
        if (json)
        {
            out.println(json(shown, now));
        }
        else
        {
            print(out, shown, now);
        }
        out.flush();
        return ExitCode.OK;
    }

    /**
     * Prints entries as aligned text.
     *
     * @param out     where.
     * @param entries the entries, in the order to print.
     * @param now     monotonic time the state is computed for.
     */
    public static void print(final PrintWriter out, final List<EntrySnapshot> entries, final long now)
    {
        final TextTable table = new TextTable(new String[] {"KIND", "IDENTIFIER", "ACTION", "STATE", "AGE"},
            new boolean[] {false, false, false, false, true});
        for (final EntrySnapshot entry : entries)
        {
            final EntryState state = EntryState.of(entry, now);
            table.row(entry.kind().label(), identifier(entry), ActionConverter.name(entry.action()),
                (entry.tombstoned() ? "[tombstoned] " : "") + describe(entry, state), Durations.nanos(state.ageNs()));
        }
        table.print(out);
        out.println(entries.size() + (entries.size() == 1 ? " entry" : " entries"));
    }

    /**
     * @param entry a snapshot.
     * @return its identifier, escaped for a terminal, with a trailing ellipsis when the stored label was cut.
     */
    public static String identifier(final EntrySnapshot entry)
    {
        return Escape.label(entry.label()) + (entry.labelCut() ? "..." : "");
    }

    private static String describe(final EntrySnapshot entry, final EntryState state)
    {
        switch (entry.kind())
        {
            case BUCKET:
                if (state.tokens() < 0)
                {
                    return "unreadable limit " + entry.limit() + "/" + entry.windowMs() + "ms";
                }
                return state.tokens() + "/" + entry.limit() + " tokens, " + (state.nextTokenNs() == 0 ? "full" :
                    "next in " + Durations.nanos(state.nextTokenNs()));
            case WINDOW:
                final StringBuilder text = new StringBuilder();
                text.append(state.windowUsed()).append('/').append(entry.limit()).append(" used, shards [");
                for (int shard = 0; shard < state.shardUsed().length; shard++)
                {
                    text.append(shard == 0 ? "" : " ").append(state.shardUsed()[shard]);
                }
                return text.append("], window ").append(Durations.nanos(entry.windowMs() * 1_000_000L))
                    .append(", ").append(Durations.nanos(state.windowLeftNs())).append(" left").toString();
            default:
                return state.blocked() + " refused";
        }
    }

    /**
     * @param entries entries to write.
     * @param now     monotonic time the state is computed for.
     * @return a JSON array of entry objects; field names are stable.
     */
    public static String json(final List<EntrySnapshot> entries, final long now)
    {
        final Json json = new Json().beginArray();
        for (final EntrySnapshot entry : entries)
        {
            final EntryState state = EntryState.of(entry, now);
            json.beginObject()
                .field("kind", entry.kind().label())
                .field("identifier", entry.label())
                .field("identifierCut", entry.labelCut())
                .field("action", ActionConverter.name(entry.action()))
                .field("limit", entry.limit())
                .field("windowMs", entry.windowMs())
                .field("ageMs", state.ageNs() / 1_000_000L)
                .field("tombstoned", entry.tombstoned());
            switch (entry.kind())
            {
                case BUCKET -> json.field("tokens", state.tokens()).field("nextTokenMs", ceilMs(state.nextTokenNs()));
                case WINDOW ->
                {
                    json.field("used", state.windowUsed()).name("shardUsed").beginArray();
                    for (final long used : state.shardUsed())
                    {
                        json.value(used);
                    }
                    json.endArray().field("windowLeftMs", ceilMs(state.windowLeftNs()));
                }
                default -> json.field("blocked", state.blocked());
            }
            json.endObject();
        }
        return json.endArray().toString();
    }

    private static long ceilMs(final long nanos)
    {
        return nanos < 0 ? nanos : -Math.floorDiv(-nanos, 1_000_000L);
    }
}
