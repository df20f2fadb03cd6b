package dev.floodgate.tools.command;

import dev.floodgate.reader.EntryState;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.format.Escape;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * {@code floodgate dump}: every entry of the table, one line each, read through {@link FloodgateReader}
 * (read-only, no lock) and shown with the doors' own arithmetic under the file's policy.
 */
@Command(name = "dump", mixinStandardHelpOptions = true,
    description = {"Prints every entry of the table: kind, identifier, action, state and age (a cluster " +
        "quota's lease: its balance, tokens leased and unspent, and the next sequence number).",
        "Reads the file read-only, without any lock: it never delays a check and needs only read permission."})
public final class DumpCommand implements Callable<Integer>
{
    /** Action, then identifier, then kind. */
    public static final Comparator<TableEntry> ORDER = Comparator
        .comparing((TableEntry e) -> e.action().ordinal())
        .thenComparing(TableEntry::label)
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
        final PrintWriter out = spec.commandLine().getOut();
        try (FloodgateReader reader = TableFiles.openReader(fileOption.file()))
        {
            final long now = System.nanoTime();
            final List<TableEntry> shown = reader.entries().stream()
                .filter(entry -> (tombstoned || !entry.tombstoned()) && filter.test(entry))
                .sorted(ORDER)
                .toList();
            final Function<TableEntry, EntryState> state = entry -> reader.state(entry, now);
            if (json)
            {
                out.println(json(shown, state));
            }
            else
            {
                print(out, shown, state);
                if (reader.unreadableEntries() > 0)
                {
                    // said, not dropped unsaid: a damaged entry, or one a writer moved under the walk
                    out.println(reader.unreadableEntries() + " more unreadable (being written or damaged): not shown");
                }
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    /**
     * Prints entries as aligned text.
     *
     * @param out     where.
     * @param entries the entries, in the order to print.
     * @param state   each entry's state (e.g. {@code reader.state(entry, now)}).
     */
    public static void print(final PrintWriter out, final List<TableEntry> entries,
        final Function<TableEntry, EntryState> state)
    {
        final TextTable table = new TextTable(new String[] {"KIND", "IDENTIFIER", "ACTION", "STATE", "AGE"},
            new boolean[] {false, false, false, false, true});
        for (final TableEntry entry : entries)
        {
            final EntryState s = state.apply(entry);
            table.row(entry.kind().label(), identifier(entry), ActionConverter.name(entry.action()),
                (entry.tombstoned() ? "[tombstoned] " : "") + describe(entry, s), Durations.nanos(s.ageNs()));
        }
        table.print(out);
        out.println(entries.size() + (entries.size() == 1 ? " entry" : " entries"));
    }

    /**
     * @param entry an entry.
     * @return its identifier, escaped for a terminal, with a trailing ellipsis when the stored label was cut.
     */
    public static String identifier(final TableEntry entry)
    {
        return identifier(entry.label(), entry.labelCut());
    }

    /**
     * @param label a stored label.
     * @param cut   whether it is a prefix of a longer identifier.
     * @return the label escaped for a terminal, "..." after it when cut.
     */
    public static String identifier(final String label, final boolean cut)
    {
        return Escape.label(label) + (cut ? "..." : "");
    }

    private static String describe(final TableEntry entry, final EntryState state)
    {
        switch (entry.kind())
        {
            case BUCKET:
                if (state.tokens() < 0)
                {
                    return "unreadable limit " + entry.limit() + "/" + entry.windowMs() + "ms";
                }
                return state.tokens() + "/" + state.capacity() + " tokens, " + (state.nextTokenNs() == 0 ? "full" :
                    "next in " + Durations.nanos(state.nextTokenNs()));
            case WINDOW:
                if (state.windowLimit() <= 0)
                {
                    return "action off";
                }
                final StringBuilder text = new StringBuilder();
                text.append(state.windowUsed()).append('/').append(state.windowLimit()).append(" used, shards [");
                for (int shard = 0; shard < state.shardUsed().length; shard++)
                {
                    text.append(shard == 0 ? "" : " ").append(state.shardUsed()[shard]).append('/')
                        .append(state.shardCap()[shard]);
                }
                return text.append("], window ").append(Durations.nanos(state.windowMs() * 1_000_000L))
                    .append(", ").append(Durations.nanos(state.windowLeftNs())).append(" left").toString();
            case LEASE:
                return entry.leaseBalance() + " tokens leased, unspent; next seq " + entry.leaseSequence();
            default:
                return state.blocked() + " refused";
        }
    }

    /**
     * @param entries entries to write.
     * @param state   each entry's state.
     * @return a JSON array of entry objects; field names are stable.
     */
    public static String json(final List<TableEntry> entries, final Function<TableEntry, EntryState> state)
    {
        final Json json = new Json().beginArray();
        for (final TableEntry entry : entries)
        {
            final EntryState s = state.apply(entry);
            json.beginObject()
                .field("kind", entry.kind().label())
                .field("identifier", entry.label())
                .field("identifierCut", entry.labelCut())
                .field("action", ActionConverter.name(entry.action()))
                .field("limit", entry.limit())
                .field("windowMs", entry.windowMs())
                .field("ageMs", s.ageNs() / 1_000_000L)
                .field("tombstoned", entry.tombstoned());
            switch (entry.kind())
            {
                case BUCKET -> json.field("tokens", s.tokens()).field("capacity", s.capacity())
                    .field("nextTokenMs", ceilMs(s.nextTokenNs()));
                case WINDOW ->
                {
                    json.field("windowLimit", s.windowLimit()).field("windowLengthMs", s.windowMs())
                        .field("used", s.windowUsed()).name("shardUsed").beginArray();
                    for (final long used : s.shardUsed())
                    {
                        json.value(used);
                    }
                    json.endArray().name("shardCap").beginArray();
                    for (final long cap : s.shardCap())
                    {
                        json.value(cap);
                    }
                    json.endArray().field("windowLeftMs", ceilMs(s.windowLeftNs()));
                }
                case LEASE -> json.field("balance", entry.leaseBalance()).field("sequence", entry.leaseSequence());
                default -> json.field("blocked", s.blocked());
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
