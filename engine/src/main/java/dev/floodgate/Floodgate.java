package dev.floodgate;

import dev.floodgate.door.CoarseClock;
import dev.floodgate.door.Doors;
import dev.floodgate.door.ShardedWindow;
import dev.floodgate.door.TokenBucket;
import dev.floodgate.janitor.Janitor;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Rate limits shared by every JVM on the host that opens the same file.
 *
 * <p>Two doors, on purpose:
 * <ul>
 * <li>{@link #checkLimit}: an exact token bucket, for security controls (logins). Capacity {@code limit},
 * refilling continuously at {@code limit} per window, starting full.</li>
 * <li>{@link #checkLimitInCaller}: a per-CPU-sharded fixed window, for hot throughput quotas. The count is
 * exact (a limit of n admits at most n per window), but a client may spend the end of one window and the
 * start of the next back to back: a 2x burst across a boundary is accepted.</li>
 * </ul>
 * Both return {@link #ADMITTED} or a retry-after in milliseconds (at least 1), and count every refusal in
 * the (identifier, action) blocked counter. The doors never share state for the same identifier and action.
 *
 * <p>Thread-safe. Checks on a warm key take no lock and allocate nothing. State lives in the file: closing or
 * restarting a JVM refunds nothing. A daemon janitor thread per instance reaps idle entries every
 * {@code rate_limit_cleanup_interval_ms}.
 */
public final class Floodgate implements AutoCloseable
{
    /** The result of an admitted check. */
    public static final long ADMITTED = 0;

    private static final System.Logger LOG = System.getLogger("dev.floodgate");
    private static final long HEARTBEAT_NANOS = 100_000_000L;
    /** How long close waits for checks already past the closed test before it unmaps the file. */
    public static final long CLOSE_GRACE_MS = 20;

    static
    {
        if (System.getProperty("chronicle.analytics.disable") == null)
        {
            System.setProperty("chronicle.analytics.disable", "true"); // never phone home from a broker
        }
    }

    private final FloodgateConfig config;
    private final boolean[] active;
    private final QuotaTable table;
    private final ProcessRegistry registry;
    private final int registrySlot;
    private final CoarseClock clock;
    private final Doors doors;
    private final Janitor janitor;
    private final ScheduledExecutorService janitorThread;
    private final java.util.concurrent.atomic.AtomicBoolean emergencyPending =
        new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;

    private Floodgate(final FloodgateConfig config, final QuotaTable table)
    {
        this.config = config;
        this.table = table;
        this.active = new boolean[Action.values().length];
        for (final Action action : Action.values())
        {
            active[action.ordinal()] = config.enabled() && !config.limit(action).isOff();
        }
        final Ticker ticker = config.ticker();
        this.registry = new ProcessRegistry(table.header());
        this.registrySlot = registry.register(ThreadLocalRandom.current().nextLong(), ticker.nanos());
        this.clock = new CoarseClock(ticker, this::heartbeat, HEARTBEAT_NANOS, "floodgate-clock");
        this.doors = new Doors(table, config, clock, this::requestEmergencyCleanup);
        this.janitor = new Janitor(table, registry, ticker, config.reclaimGraceMs() * 1_000_000L, registrySlot);
        this.janitorThread = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread thread = new Thread(r, "floodgate-janitor");
            thread.setDaemon(true);
            return thread;
        });
        janitorThread.scheduleWithFixedDelay(this::scheduledCleanup, config.cleanupIntervalMs(),
            config.cleanupIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /**
     * Maps the configured file, creating it if absent (0600) or replacing it if it was written under a previous
     * boot of the host.
     *
     * @param config the configuration.
     * @return an open instance; close it to detach.
     * @throws dev.floodgate.store.FloodgateFileException naming the file and why it cannot be used.
     */
    public static Floodgate open(final FloodgateConfig config)
    {
        Objects.requireNonNull(config, "config");
        final QuotaTable table = QuotaTable.open(config.file(), config.capacity(),
            Runtime.getRuntime().availableProcessors(), config.groupReadable(), config.ticker().nanos());
        try
        {
            return new Floodgate(config, table);
        }
        catch (final RuntimeException | Error ex)
        {
            table.close();
            throw ex;
        }
    }

    /**
     * Door 1: the exact token bucket, for security controls.
     *
     * @param identifier who: an IP, a user, a {@linkplain #sessionDigest session digest}; not empty.
     * @param action     what.
     * @return {@link #ADMITTED}, or the milliseconds until the next whole token.
     * @throws NullPointerException     if either argument is null.
     * @throws IllegalArgumentException if the identifier is empty.
     */
    public long checkLimit(final CharSequence identifier, final Action action)
    {
        Objects.requireNonNull(identifier, "identifier");
        if (!active[action.ordinal()])
        {
            return ADMITTED;
        }
        if (closed)
        {
            throw closedError();
        }
        return doors.checkBucket(identifier, action);
    }

    /**
     * Door 2: the per-CPU-sharded fixed window, for hot throughput quotas.
     *
     * @param identifier who; not empty.
     * @param action     what.
     * @return {@link #ADMITTED}, or the milliseconds until the current window ends.
     * @throws NullPointerException     if either argument is null.
     * @throws IllegalArgumentException if the identifier is empty.
     */
    public long checkLimitInCaller(final CharSequence identifier, final Action action)
    {
        Objects.requireNonNull(identifier, "identifier");
        if (!active[action.ordinal()])
        {
            return ADMITTED;
        }
        if (closed)
        {
            throw closedError();
        }
        return doors.checkWindow(identifier, action);
    }

    /**
     * Forgets an identifier's bucket, window and blocked count for one action, in every process: the next
     * check starts afresh.
     *
     * @param identifier who.
     * @param action     what.
     */
    public void reset(final CharSequence identifier, final Action action)
    {
        resetEntries(identifier, action);
    }

    /**
     * As {@link #reset}, saying what was there.
     *
     * @param identifier who.
     * @param action     what.
     * @return the kinds that held state ("bucket", "window", "blocked"), empty when there was none.
     */
    public List<String> resetEntries(final CharSequence identifier, final Action action)
    {
        requireIdentifier(identifier);
        Objects.requireNonNull(action, "action");
        final List<String> removed = new ArrayList<>(3);
        final KeyHasher hasher = table.hasher();
        for (final byte kind : new byte[] {EntryLayout.KIND_BUCKET, EntryLayout.KIND_WINDOW, EntryLayout.KIND_BLOCKED})
        {
            final int outcome = table.withWriteLock(hasher.key(identifier, action, kind), value ->
            {
                if (value.getLongVolatile(EntryLayout.GENERATION_OFFSET) == EntryLayout.TOMBSTONE)
                {
                    return false;
                }
                final long now = config.ticker().nanos();
                if (kind == EntryLayout.KIND_BUCKET)
                {
                    value.putLongVolatile(EntryLayout.STATE_OFFSET, new TokenBucket(
                        value.getLong(EntryLayout.LIMIT_OFFSET), value.getLong(EntryLayout.WINDOW_MS_OFFSET))
                        .fullWord(now));
                }
                else if (kind == EntryLayout.KIND_WINDOW)
                {
                    for (int shard = 0, n = EntryLayout.shardsOf(value); shard < n; shard++)
                    {
                        value.putLongVolatile(EntryLayout.shardOffset(shard), 0);
                    }
                }
                else
                {
                    value.putLongVolatile(EntryLayout.STATE_OFFSET, 0);
                }
                // A reset entry is logically gone: checks holding its address go back to the table, and the
                // janitor removes it after the grace period unless a check revives it first.
                EntryLayout.tombstone(value, now);
                removed.add(kind == EntryLayout.KIND_BUCKET ? "bucket" : kind == EntryLayout.KIND_WINDOW ?
                    "window" : "blocked");
                return false;
            });
            assert outcome >= 0;
        }
        return removed;
    }

    /**
     * @param identifier who.
     * @param action     what.
     * @return refusals of this (identifier, action) by either door since its counter was created or reset.
     */
    public long blockedCount(final CharSequence identifier, final Action action)
    {
        requireIdentifier(identifier);
        Objects.requireNonNull(action, "action");
        return table.readWord(EntryLayout.KIND_BLOCKED, action, identifier, EntryLayout.STATE_OFFSET, 0);
    }

    /**
     * @param action what.
     * @param n      how many, at least 0.
     * @return the {@code n} most-refused identifiers of {@code action}, count descending.
     */
    public List<BlockedEntry> topBlocked(final Action action, final int n)
    {
        Objects.requireNonNull(action, "action");
        if (n < 0)
        {
            throw new IllegalArgumentException("n=" + n + ": expected 0 or more");
        }
        final List<BlockedEntry> all = new ArrayList<>();
        table.forEachEntryInPlace((key, value) ->
        {
            if (EntryLayout.kind(value) == EntryLayout.KIND_BLOCKED &&
                value.getByte(EntryLayout.ACTION_OFFSET) == action.ordinal() &&
                value.getLong(EntryLayout.GENERATION_OFFSET) != EntryLayout.TOMBSTONE)
            {
                all.add(new BlockedEntry(EntryLayout.readLabel(value), value.getLong(EntryLayout.STATE_OFFSET)));
            }
        });
        all.sort(Comparator.comparingLong(BlockedEntry::count).reversed().thenComparing(BlockedEntry::identifier));
        return List.copyOf(all.subList(0, Math.min(n, all.size())));
    }

    /** @return a summary of the table. */
    public Stats stats()
    {
        final long[] counts = new long[4];
        final long[] tombstoned = {0};
        table.forEachEntryInPlace((key, value) ->
        {
            if (value.getLong(EntryLayout.GENERATION_OFFSET) == EntryLayout.TOMBSTONE)
            {
                tombstoned[0]++;
            }
            else
            {
                counts[EntryLayout.kind(value) & 3]++;
            }
        });
        final FileHeader header = table.header();
        final Map<Action, Long> tableFull = new EnumMap<>(Action.class);
        final Map<Action, Long> degraded = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            tableFull.put(action, header.counterVolatile(FileHeader.tableFullOffset(action)));
            degraded.put(action, header.counterVolatile(FileHeader.degradedOffset(action)));
        }
        return new Stats(counts[EntryLayout.KIND_BUCKET], counts[EntryLayout.KIND_WINDOW],
            counts[EntryLayout.KIND_BLOCKED], tombstoned[0], table.capacity(), table.shards(), Map.copyOf(tableFull),
            Map.copyOf(degraded), table.guard().repairs(),
            header.counterVolatile(FileHeader.JANITOR_RUNS_OFFSET), header.counterVolatile(FileHeader.REAPED_OFFSET),
            header.counterVolatile(FileHeader.REVIVED_OFFSET), registry.attached(), table.fileSize());
    }

    /**
     * Runs one janitor pass now. Removal takes two passes at least the reclamation grace period apart (see
     * {@link Janitor}); this returns what this pass removed.
     *
     * @return entries reaped by this pass.
     */
    public int cleanup()
    {
        return janitor.runPass().reaped();
    }

    /**
     * @param token a dashboard session token.
     * @return the identifier to use for it: the first 16 bytes of its SHA-256, base64url without padding, so
     * the token itself never reaches the file.
     */
    public static String sessionDigest(final CharSequence token)
    {
        Objects.requireNonNull(token, "token");
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest(token.toString().getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(digest, 16));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }

    /** @return the configuration this instance was opened with. */
    public FloodgateConfig config()
    {
        return config;
    }

    /** @return the shard count fixed in the file. */
    public int shards()
    {
        return table.shards();
    }

    /**
     * Stops the janitor and clock threads, leaves the process registry and unmaps the file. State stays in the
     * file. Checks after close throw {@link IllegalStateException}; a check still running when close unmaps the
     * file would touch unmapped memory, so close waits {@link #CLOSE_GRACE_MS} ms after refusing new checks.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        java.util.concurrent.locks.LockSupport.parkNanos(CLOSE_GRACE_MS * 1_000_000L); // let in-flight checks end
        janitorThread.shutdownNow();
        try
        {
            janitorThread.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        clock.close();
        registry.unregister(registrySlot);
        table.close();
    }

    private void heartbeat()
    {
        try
        {
            registry.heartbeat(registrySlot, config.ticker().nanos());
        }
        catch (final RuntimeException ex)
        {
            LOG.log(System.Logger.Level.ERROR, "heartbeat failed", ex);
        }
    }

    /** A check found the table full: run a janitor pass now, on the janitor thread, unless one is pending. */
    private void requestEmergencyCleanup()
    {
        if (emergencyPending.compareAndSet(false, true))
        {
            try
            {
                janitorThread.execute(() ->
                {
                    emergencyPending.set(false);
                    scheduledCleanup();
                });
            }
            catch (final java.util.concurrent.RejectedExecutionException closing)
            {
                emergencyPending.set(false);
            }
        }
    }

    private void scheduledCleanup()
    {
        try
        {
            janitor.runPass();
        }
        catch (final RuntimeException ex)
        {
            LOG.log(System.Logger.Level.ERROR, "janitor pass over " + config.file() + " failed", ex);
        }
    }

    private IllegalStateException closedError()
    {
        return new IllegalStateException("Floodgate on " + config.file() + " is closed");
    }

    private static void requireIdentifier(final CharSequence identifier)
    {
        Objects.requireNonNull(identifier, "identifier");
        if (identifier.length() == 0)
        {
            throw new IllegalArgumentException("identifier is empty: expected at least one character");
        }
    }

}
