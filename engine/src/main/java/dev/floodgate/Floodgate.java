package dev.floodgate;

import dev.floodgate.door.CheckResult;
import dev.floodgate.reader.FloodgateReader;

import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
    public static final long ADMITTED = CheckResult.ADMITTED;
    /**
     * The result of a charge whose cost exceeds the whole limit: it can never succeed, whatever the wait, so
     * no retry-after is given. Counted apart in {@link Stats.Checks#never()}. As a retry-after it reads
     * "forever", so callers that treat any non-zero result as a refusal need no special case.
     */
    public static final long NEVER = CheckResult.NEVER;
    /**
     * Environment variable that, set to {@code publish}, makes {@link #open} publish its configuration; unset, blank or
     * {@code adopt} (the default), {@code open} publishes only on a file with no policy yet and otherwise adopts the
     * file's; any other value fails {@code open}, naming it. README.md, "One policy for the node", says more.
     */
    public static final String POLICY_ENV = "FLOODGATE_POLICY";
    /** System property equivalent of {@link #POLICY_ENV}. */
    public static final String POLICY_PROPERTY = "floodgate.policy";

    private final FloodgateConfig config;
    private final Doorkeeper keeper;

    private Floodgate(final FloodgateConfig config, final boolean adopting)
    {
        this.config = config;
        this.keeper = new Doorkeeper(config, adopting);
    }

    /**
     * Maps the configured file, creating it if absent (0600) or replacing it if it was written under a previous
     * boot of the host.
     *
     * @param config the configuration.
     * @return an open instance; close it to detach.
     * @throws FloodgateFileException naming the file and why it cannot be used.
     * @throws IllegalStateException naming the JVM flags this JVM was started without ({@link JvmFlags}).
     */
    public static Floodgate open(final FloodgateConfig config)
    {
        return new Floodgate(Objects.requireNonNull(config, "config"), false);
    }

    /**
     * Creates the configured file as {@link #open} would, or checks an existing one, without attaching to it or
     * publishing a policy: the first JVM to {@link #open} it publishes its configuration's. For tools that
     * prepare a table other JVMs will share.
     *
     * @param config the file, its capacity and whether it is group-readable; its limits are ignored.
     * @return the shard count fixed in the file.
     * @throws FloodgateFileException naming the file and why it cannot be used.
     */
    public static int createFile(final FloodgateConfig config)
    {
        return Attachment.createFile(Objects.requireNonNull(config, "config"));
    }

    /**
     * Maps an existing file as an operator's tool does: adopts the file's policy whatever
     * {@code FLOODGATE_POLICY} says, never publishes one and logs nothing about it. The configuration's limits
     * are ignored, so a tool that only resets or republishes part of the policy never imposes its own defaults
     * on the node.
     *
     * @param config the file and capacity; its limits, windows and modes are ignored.
     * @return an open instance; close it to detach.
     * @throws FloodgateFileException naming the file and why it cannot be used, including a file with no policy yet.
     */
    public static Floodgate openAdopting(final FloodgateConfig config)
    {
        return new Floodgate(Objects.requireNonNull(config, "config"), true);
    }

    /**
     * Door 1: the exact token bucket, for security controls.
     *
     * @param identifier who: an IP, a user, a {@linkplain #sessionDigest session digest}; not empty.
     * @param action     what.
     * @return {@link #ADMITTED}, or the milliseconds until the next whole token.
     * @throws NullPointerException     if either argument is null, naming it ({@code identifier}, {@code action}).
     * @throws IllegalArgumentException if the identifier is empty.
     */
    public long checkLimit(final CharSequence identifier, final Action action)
    {
        return checkLimit(identifier, action, 1);
    }

    /**
     * Door 1, weighted: claims {@code cost} tokens at once, all or nothing (GCRA with an increment of
     * {@code cost} emission intervals).
     *
     * @param identifier who; not empty.
     * @param action     what.
     * @param cost       tokens, at least 1.
     * @return {@link #ADMITTED}; the milliseconds until {@code cost} tokens are available; or {@link #NEVER}
     * when {@code cost} exceeds the limit.
     * @throws IllegalArgumentException if the cost is below 1 or the identifier is empty.
     */
    public long checkLimit(final CharSequence identifier, final Action action, final long cost)
    {
        Arguments.requireCheck(identifier, action, cost);
        return keeper.checkBucket(identifier, action, cost);
    }

    /**
     * Door 2: the per-CPU-sharded fixed window, for hot throughput quotas.
     *
     * @param identifier who; not empty.
     * @param action     what.
     * @return {@link #ADMITTED}, or the milliseconds until the current window ends.
     * @throws NullPointerException     if either argument is null, naming it ({@code identifier}, {@code action}).
     * @throws IllegalArgumentException if the identifier is empty.
     */
    public long checkLimitInCaller(final CharSequence identifier, final Action action)
    {
        return checkLimitInCaller(identifier, action, 1);
    }

    /**
     * Door 2, weighted: claims {@code cost} tokens of the current window across the shards, all or nothing.
     *
     * @param identifier who; not empty.
     * @param action     what.
     * @param cost       tokens, at least 1.
     * @return {@link #ADMITTED}; the milliseconds until the current window ends; or {@link #NEVER} when
     * {@code cost} exceeds the limit.
     * @throws IllegalArgumentException if the cost is below 1 or the identifier is empty.
     */
    public long checkLimitInCaller(final CharSequence identifier, final Action action, final long cost)
    {
        Arguments.requireCheck(identifier, action, cost);
        return keeper.checkWindow(identifier, action, cost);
    }

    /**
     * Charges several quotas at once, all or nothing (e.g. the records and the bytes of one produce): each is
     * claimed in list order and, when one is refused, the ones already claimed are given back. A quota of an
     * action in shadow mode never fails the whole. Each charge counts as one check of its action.
     *
     * @param charges the quotas; not empty.
     * @return {@link #ADMITTED}, or the first refusing charge's result ({@link #NEVER} included: also for quotas on
     * one identifier, action and door whose costs together exceed its limit).
     */
    public long charge(final List<Charge> charges)
    {
        Arguments.requireCharges(charges);
        return keeper.charge(charges);
    }

    /**
     * Resolves an (identifier, action) once, e.g. per connection: the handle's checks answer as this instance's
     * methods of the same names, without finding the identifier again on every check.
     *
     * @param identifier who; not empty (copied).
     * @param action     what.
     * @return a thread-safe handle, valid while this instance is open.
     * @throws IllegalArgumentException if the identifier is empty.
     */
    public Quota quota(final CharSequence identifier, final Action action)
    {
        Arguments.requireKey(identifier, action);
        return keeper.quota(identifier, action);
    }

    /**
     * What {@link #checkLimit(CharSequence, Action)} would answer now, consuming nothing and creating no entry.
     *
     * @param identifier who; not empty.
     * @param action     what.
     * @return the bucket's limit, the tokens left, the retry-after of a check of cost 1 and the time to full;
     * {@code Probe(0, Long.MAX_VALUE, 0, 0)} when the action (or the engine) is switched off. A node quota switched
     * off leaves this JVM's cluster quota of the action in force: the probe is then the cluster's (its limit, at most
     * its limit left, and the wait while the node's lease is drained or Redis is down and the fallback refuses).
     */
    public Probe probe(final CharSequence identifier, final Action action)
    {
        Arguments.requireKey(identifier, action);
        return keeper.probeBucket(identifier, action);
    }

    /**
     * What {@link #checkLimitInCaller(CharSequence, Action)} would answer now, consuming nothing and creating no
     * entry.
     *
     * @param identifier who; not empty.
     * @param action     what.
     * @return the current window's limit, the tokens left in it, the retry-after of a check of cost 1 and the
     * time to the window's end; {@code Probe(0, Long.MAX_VALUE, 0, 0)} when the action (or the engine) is off (the
     * cluster's alone for a node quota off under this JVM's cluster quota, as {@link #probe} says).
     */
    public Probe probeInCaller(final CharSequence identifier, final Action action)
    {
        Arguments.requireKey(identifier, action);
        return keeper.probeWindow(identifier, action);
    }

    /** @return the policy every JVM mapping the file enforces now. */
    public FloodgatePolicy policy()
    {
        return keeper.operate(attachment -> PolicyPublisher.toPolicy(attachment.doors().policy()));
    }

    /**
     * Publishes {@code newConfig}'s limits, windows and modes as the node's policy: every JVM mapping the file
     * enforces it from its next check (a window's change from the window boundary after publication; see
     * the policy planner). Other settings of {@code newConfig} (file, capacity, janitor, and the cluster quota's:
     * Redis, cluster limits, leases, fallbacks, which take effect at the next open) are ignored.
     *
     * <p>Every action's limit, window and mode is published, not only those changed: to change one, start from the
     * policy in force, {@code reconfigure(policy().applyTo(config()).toBuilder().limit(...).build())}.
     * {@link #config()} is what this instance was opened with, so a configuration built from it alone undoes every
     * change published since (by another JVM, {@code floodgate policy set}, or this instance).
     *
     * @param newConfig the configuration to take the policy from.
     * @return the published policy.
     */
    public FloodgatePolicy reconfigure(final FloodgateConfig newConfig)
    {
        return keeper.operate(attachment ->
        {
            Objects.requireNonNull(newConfig, "newConfig");
            PolicyPublisher.publish(attachment.table(), newConfig, config.ticker(), false);
            return policy();
        });
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
     * @throws TableBusyException when a live process held a kind's segment for 2 s: the kinds are reset one after
     * the other, so those before it are reset, and the message names both lists (a retry resets the rest).
     */
    public List<String> resetEntries(final CharSequence identifier, final Action action)
    {
        return keeper.operate(attachment ->
        {
            Arguments.requireKey(identifier, action);
            return TableAdmin.reset(attachment.table(), config.ticker(), identifier, action);
        });
    }

    /**
     * @param identifier who.
     * @param action     what.
     * @return refusals of this (identifier, action) by either door since its counter was created or reset. The
     * janitor removes a counter idle for a day; it reads its count until the grace period ends, since a refusal
     * in that time keeps it.
     */
    public long blockedCount(final CharSequence identifier, final Action action)
    {
        return keeper.operate(attachment ->
        {
            Arguments.requireKey(identifier, action);
            return TableAdmin.blockedCount(attachment.table(), identifier, action);
        });
    }

    /**
     * @param action what.
     * @param n      how many, at least 0.
     * @return the {@code n} most-refused identifiers of {@code action}, count descending.
     * @throws FloodgateFileException as {@link #stats} does: it reads the table by path.
     */
    public List<BlockedEntry> topBlocked(final Action action, final int n)
    {
        return keeper.operate(attachment ->
        {
            Arguments.requireTop(action, n);
            return TableAdmin.topBlocked(attachment.table(), action, n);
        });
    }

    /**
     * @return a summary of the table, read as {@link FloodgateReader} reads it: without the table guard or any
     * lock, so it never delays a check (entry counts are not a snapshot across segments).
     * @throws FloodgateFileException when the file at the configured path is no longer the table this instance maps
     * (removed from under it, e.g. by systemd's {@code RemoveIPC}): it still enforces, but its figures are read by path.
     */
    public Stats stats()
    {
        return keeper.operate(attachment ->
        {
            final Map<Action, Stats.Checks> checks = attachment.checks(); // flushes this process's cluster counts too
            return TableAdmin.stats(attachment.table(), checks, ClusterFigures.connection(attachment.cluster()));
        });
    }

    /**
     * Per action check counters of every process, read from the file with volatile loads and no lock (what
     * {@code floodgate watch} reads). This process's own counts since its last heartbeat (at most 100 ms) are
     * flushed first.
     *
     * @return per action admitted, refused, shadowed and impossible checks.
     */
    public Map<Action, Stats.Checks> checks()
    {
        return keeper.operate(Attachment::checks);
    }

    /**
     * This process's own check counters since this instance opened the file, read from the heap without touching
     * the file (what a metrics registry polls; {@link #checks()} is the node's).
     *
     * @return per action admitted, refused, shadowed and impossible checks of this instance.
     */
    public Map<Action, Stats.Checks> processChecks()
    {
        return keeper.operate(Attachment::processChecks);
    }

    /**
     * This process's cluster-quota figures (issue 12), read from its heap without touching the file: its
     * connection to Redis, its client's round trips and tokens, and per action its checks the cluster refused or
     * answered by the fallback. Zeros and {@code NONE} without a cluster quota. {@link Stats#cluster()} is the
     * node's.
     *
     * @return this instance's cluster figures.
     */
    public ClusterStats.Process processCluster()
    {
        return keeper.operate(attachment -> ClusterFigures.process(attachment.cluster()));
    }

    /**
     * Runs one janitor pass now. Removal takes two passes at least the reclamation grace period apart (see
     * the janitor); this returns what this pass removed.
     *
     * @return entries reaped by this pass.
     */
    public int cleanup()
    {
        return keeper.operate(Attachment::cleanup);
    }

    /**
     * @param token a dashboard session token; not empty (every request without a token would share one quota).
     * @return the identifier to use for it: the first 16 bytes of its SHA-256, base64url without padding, so
     * the token itself never reaches the file.
     * @throws NullPointerException     if the token is null.
     * @throws IllegalArgumentException if the token is empty.
     */
    public static String sessionDigest(final CharSequence token)
    {
        return SessionDigest.of(token);
    }

    /** @return the configuration this instance was opened with. */
    public FloodgateConfig config()
    {
        return config;
    }

    /** @return the shard count fixed in the file. */
    public int shards()
    {
        return keeper.operate(attachment -> attachment.table().shards());
    }

    /**
     * Detaches from the file: every method but {@link #config()} throws {@link IllegalStateException} from now
     * on; the janitor and clock threads stop; this process's counts are folded into the file and it leaves the
     * process registry; table operations in flight (cold checks waiting for a segment, a janitor pass) are waited
     * for, each bounded by its timeout (a janitor pass stops at its next step), and so is the janitor thread: once
     * this returns, neither thread runs. State stays in the file. With a cluster quota, the node's last live
     * process gives the unspent balances of its leases back to Redis first, and those of leases a closed sibling
     * held whose identifier fits an entry's 48-byte label (about a second at most and one table scan, one
     * refund's bound when Redis is down); a process whose siblings still map the file leaves them the balances.
     * An idle give-back in flight (the janitor thread's, a {@link #cleanup}'s) has its refund answered before
     * the Redis client closes, within that refund's bound (about 1 s), and starts no other. A caller whose
     * interrupt status is set, or who is interrupted while this runs, is served like any other and keeps the status:
     * an interrupt ends none of the close's waits (a refund cut short would lose its tokens).
     *
     * <p>The file is never unmapped under a check: a warm check that passed the closed test a moment before may
     * still be writing to it. It is unmapped when this instance becomes unreachable (a {@link Cleaner} action),
     * which a running check prevents. Idempotent; thread-safe: a close called while another is in progress returns
     * once that one has.
     */
    @Override
    public void close()
    {
        keeper.close();
    }
}
