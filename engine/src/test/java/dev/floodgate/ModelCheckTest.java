package dev.floodgate;

import dev.floodgate.testkit.ModelSeeds;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A random sequence of checks in both doors, resets, janitor passes, clock steps and policy publishes (several
 * inside one window, off and on), compared result by result with a sequential reference model written
 * independently of the engine: a classic token bucket in exact integer arithmetic (tokens scaled by the window)
 * and an unsharded fixed window under the documented regime rules. Repeatable from the printed
 * seed ({@code -Dfloodgate.model.seed=N} adds one; more seeds and steps: {@link ModelSeeds}).
 */
class ModelCheckTest
{
    private static final long MS = 1_000_000L;
    private static final Action[] ACTIONS = {Action.AUTH, Action.PUBLISH, Action.SUBSCRIBE};
    private static final long[] LIMITS = {3, 5, 7};
    private static final long[] WINDOWS_MS = {1_000, 200, 60_000};
    /** The action whose policy the model publishes anew; only its window door is checked (no unit conversion). */
    private static final Action PUBLISHED = Action.PUBLISH;
    private static final long[] PUBLISH_LIMITS = {0, 2, 5, 9};
    private static final long[] PUBLISH_WINDOWS_MS = {200, 700, 1_000};

    private static int indexOf(final Action action)
    {
        return java.util.Arrays.asList(ACTIONS).indexOf(action);
    }

    @TempDir
    Path dir;

    static LongStream seeds()
    {
        // 702474909666: a clock read behind a boundary after the home shard moved on; the other shards counted
        // the check in the older window, and the window the model counts in refused a token it had.
        // 1000219: a publish whose clock read before the epoch of a regime checks had entered, then a check at
        // that reading: a moment the file's two regimes no longer cover (the model had no such rule)
        return ModelSeeds.seeds(1, 2, 3, 42, 20261129, 702_474_909_666L, 1_000_219L);
    }

    /** The reference bucket: tokens x windowNs, refilled by elapsed x limit, capped at limit x windowNs. */
    static final class ModelBucket
    {
        final long limit;
        final long windowNs;
        long scaledTokens;
        long last;

        ModelBucket(final long limit, final long windowMs, final long now)
        {
            this.limit = limit;
            this.windowNs = windowMs * MS;
            this.scaledTokens = limit * windowNs;
            this.last = now;
        }

        long check(final long now)
        {
            scaledTokens = Math.min(limit * windowNs, scaledTokens + Math.max(0, now - last) * limit);
            last = Math.max(last, now);
            if (scaledTokens >= windowNs)
            {
                scaledTokens -= windowNs;
                return 0;
            }
            final long ns = -Math.floorDiv(-(windowNs - scaledTokens), limit);
            return Math.max(1, -Math.floorDiv(-ns, MS));
        }
    }

    /**
     * The reference policy of one window-door action: the regimes in the order they take effect, each a limit and
     * window numbered from its epoch (the first from 0, for all time before the second). A publish follows the
     * documented rules, written here independently of the planner: a change of a regime still pending replaces
     * it from the same epoch; otherwise the new regime starts when the window in force ends (or the last window of
     * the current regime a check counted in, when a clock read later was set back since), or at once when the action
     * was off. A regime a check counted in is in force, not pending.
     */
    static final class ModelPolicy
    {
        final List<long[]> regimes = new ArrayList<>(); // {limit, windowMs, epochMs}
        /** The latest moment a check counted in the current (last) regime, MIN_VALUE when none. */
        long checkedMs = Long.MIN_VALUE;

        ModelPolicy(final long limit, final long windowMs)
        {
            regimes.add(new long[] {limit, windowMs, 0});
        }

        void publish(final long limit, final long windowMs, final long nowMs)
        {
            final long[] current = regimes.get(regimes.size() - 1);
            if (current[0] == limit && current[1] == windowMs)
            {
                return;
            }
            if (regimes.size() > 1 && nowMs < current[2] && checkedMs == Long.MIN_VALUE)
            {
                regimes.set(regimes.size() - 1, new long[] {limit, windowMs, current[2]});
                return;
            }
            final long at = Math.max(nowMs, checkedMs);
            final long epoch = current[0] == 0 ? nowMs :
                current[2] + (Math.floorDiv(at - current[2], current[1]) + 1) * current[1];
            regimes.add(new long[] {limit, windowMs, epoch});
            checkedMs = Long.MIN_VALUE;
        }

        /**
         * The file keeps two regimes, the current and the one before it (the first numbers all time), and a moment
         * before the one before's epoch belongs to neither: refused until the clock reaches that epoch, nothing
         * counted ({@code ActionRule.unknownForMs}). A clock set back a few ms meets one when the publish that
         * ended its regime read its clock before that regime's epoch, which checks had already entered.
         *
         * @return the ms until {@code nowMs} is known, 0 when it is.
         */
        long unknownForMs(final long nowMs)
        {
            final long knownFromMs = regimes.size() < 3 ? Long.MIN_VALUE : regimes.get(regimes.size() - 2)[2];
            return nowMs >= knownFromMs ? 0 : knownFromMs - nowMs;
        }

        /** @return the index of the regime in force at {@code nowMs}. */
        int regimeAt(final long nowMs)
        {
            int r = 0;
            while (r + 1 < regimes.size() && regimes.get(r + 1)[2] <= nowMs)
            {
                r++;
            }
            return r;
        }
    }

    /**
     * The reference window of one key: the count of the newest (regime, window) it has claimed in, as a range.
     *
     * <p>A check whose clock reads behind that window (another process's clock, read a little earlier) counts, by
     * the documented rule, in the newest window its sweep of the shards saw: the key's newest, or its own clock's
     * when the shards it tried had not moved on (with two shards or more), or it is refused (a shard 2<sup>22</sup>
     * windows ahead of it after repeated replacements of a pending regime). Which one depends on the shards, which
     * this model does not follow, so such a check may answer anything, and the newest window's count becomes a range:
     * {@code usedMin} if it counted elsewhere, one more if it counted there. Every other check is held to the range:
     * admitted only while {@code usedMin} is below the limit, refused only once {@code usedMax} reaches it.
     */
    static final class ModelWindow
    {
        final ModelPolicy policy;
        int regime = -1;
        long window = Long.MIN_VALUE;
        long usedMin;
        long usedMax;

        ModelWindow(final ModelPolicy policy)
        {
            this.policy = policy;
        }

        /** @return null when the engine's answer {@code actual} is one the rules allow; else what they allow. */
        String accept(final long now, final long actual)
        {
            final long nowMs = Math.floorDiv(now, MS);
            final long unknownMs = policy.unknownForMs(nowMs);
            if (unknownMs > 0)
            {
                return actual == unknownMs ? null : "a refusal for " + unknownMs + " ms (a moment no regime covers)";
            }
            final int r = policy.regimeAt(nowMs);
            final long[] regime = policy.regimes.get(r);
            if (regime[0] == 0)
            {
                return actual == 0 ? null : "0 (off: admitted, nothing counted)";
            }
            final long w = Math.floorDiv(nowMs - regime[2], regime[1]);
            if (r == policy.regimes.size() - 1)
            {
                policy.checkedMs = Math.max(policy.checkedMs, nowMs);
            }
            if (r > this.regime || r == this.regime && w > window)
            {
                this.regime = r;
                window = w;
                usedMin = 0;
                usedMax = 0;
            }
            final long limit = policy.regimes.get(this.regime)[0];
            if (r != this.regime || w != window)
            {
                // a late check (class comment): any answer; if admitted, it may have counted in the newest window
                usedMax = actual == 0 ? Math.min(usedMax + 1, limit) : usedMax;
                return null;
            }
            if (actual == 0)
            {
                if (usedMin >= limit)
                {
                    return "a refusal (the window holds " + usedMin + " of " + limit + ")";
                }
                usedMin++;
                usedMax = Math.min(usedMax + 1, limit);
                return null;
            }
            if (usedMax < limit)
            {
                return "0 (the window holds at most " + usedMax + " of " + limit + ")";
            }
            usedMin = limit; // refused: it is full
            long end = regime[2] + (w + 1) * regime[1];
            if (r + 1 < policy.regimes.size())
            {
                end = Math.min(end, policy.regimes.get(r + 1)[2]);
            }
            final long retryAfter = Math.max(1, end - nowMs);
            return actual == retryAfter ? null : "a refusal for " + retryAfter + " ms";
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldAgreeWithTheReferenceModelOnEveryResult(final long seed)
    {
        System.out.println("ModelCheckTest seed=" + seed);
        final Random random = new Random(seed);
        final ManualTicker ticker = new ManualTicker(random.nextLong() >> 8);
        final FloodgateConfig.Builder builder = FloodgateConfig.builder().file(dir.resolve("model-" + seed + ".map"))
            .capacity(1_000).ticker(ticker).reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
        for (int a = 0; a < ACTIONS.length; a++)
        {
            builder.limit(ACTIONS[a], LIMITS[a], WINDOWS_MS[a]);
        }
        final Map<String, ModelBucket> buckets = new HashMap<>();
        final Map<String, ModelWindow> windows = new HashMap<>();
        final ModelPolicy[] policies = new ModelPolicy[ACTIONS.length];
        for (int a = 0; a < ACTIONS.length; a++)
        {
            policies[a] = new ModelPolicy(LIMITS[a], WINDOWS_MS[a]);
        }
        long publishedAt = Long.MIN_VALUE;
        final Map<String, Long> blocked = new HashMap<>();
        final Map<String, java.util.Deque<String>> trace = new HashMap<>();
        try (Floodgate gate = Floodgate.open(builder.build()))
        {
            final int steps = ModelSeeds.steps(4_000);
            for (int step = 0; step < steps; step++)
            {
                final int a = random.nextInt(ACTIONS.length);
                final String id = "id-" + random.nextInt(4);
                final String key = a + "/" + id;
                final long now = ticker.nanos();
                final int op = random.nextInt(100);
                final java.util.Deque<String> history = trace.computeIfAbsent(key, k -> new java.util.ArrayDeque<>());
                history.addLast("step " + step + " op " + op + " at " + now);
                if (history.size() > 12)
                {
                    history.removeFirst();
                }
                final String where = "seed " + seed + " step " + step + " op " + op + " " + key + ", its history " +
                    history;
                if (op < 40 && ACTIONS[a] != PUBLISHED)
                {
                    final ModelBucket model = buckets.computeIfAbsent(key, k -> new ModelBucket(LIMITS[a],
                        WINDOWS_MS[a], now));
                    if (now < model.last)
                    {
                        // Behind the bucket's last write, GCRA counts the gap against the caller (fewer tokens,
                        // never more): the documented difference from "treated as zero". Not compared here.
                        continue;
                    }
                    final long expected = model.check(now);
                    assertEquals(expected, gate.checkLimit(id, ACTIONS[a]), where + " bucket");
                    blocked.merge(key, expected == 0 ? 0L : 1L, Long::sum);
                }
                else if (op < 80)
                {
                    final long actual = gate.checkLimitInCaller(id, ACTIONS[a]);
                    final String allowed = windows.computeIfAbsent(key, k -> new ModelWindow(policies[a]))
                        .accept(now, actual);
                    assertNull(allowed, () -> where + " window: answered " + actual + ", the rules allow " + allowed);
                    blocked.merge(key, actual == 0 ? 0L : 1L, Long::sum);
                }
                else if (op < 83)
                {
                    gate.reset(id, ACTIONS[a]);
                    buckets.remove(key);
                    windows.remove(key);
                    blocked.remove(key);
                }
                else if (op < 88)
                {
                    gate.cleanup();
                }
                else if (op < 95)
                {
                    ticker.advanceNanos(random.nextInt(300) * MS + random.nextInt(1_000_000));
                }
                else if (op < 97)
                {
                    // another process's clock, read a little earlier (never before the last publish: the file
                    // keeps the regime before the newest, not every older one)
                    ticker.advanceNanos(-Math.min(random.nextInt(5) * MS, Math.max(0, now - publishedAt)));
                }
                else
                {
                    // a publish of the window door's action: several may fall inside one window, off and on
                    final int p = indexOf(PUBLISHED);
                    final long limit = PUBLISH_LIMITS[random.nextInt(PUBLISH_LIMITS.length)];
                    final long windowMs = PUBLISH_WINDOWS_MS[random.nextInt(PUBLISH_WINDOWS_MS.length)];
                    gate.reconfigure(builder.limit(PUBLISHED, limit, windowMs).build());
                    policies[p].publish(limit, windowMs, Math.floorDiv(now, MS));
                    publishedAt = now;
                    history.addLast("published " + limit + "/" + windowMs + " ms");
                }
                assertEquals((long)blocked.getOrDefault(key, 0L), gate.blockedCount(id, ACTIONS[a]), where + " blocked");
            }
        }
    }
}
