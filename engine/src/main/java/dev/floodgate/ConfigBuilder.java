package dev.floodgate;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The body of {@link FloodgateConfig.Builder}, as {@code AbstractStringBuilder} is {@link StringBuilder}'s: the
 * public nested name is the contract, so the state and setters live here and {@link FloodgateConfig} keeps to
 * the value. The setters are public and return the nested type; javac gives {@code Builder} public bridges to
 * them, so callers in other packages, and reflection, see them as the {@code Builder}'s own.
 */
abstract class ConfigBuilder
{
    final ConfigValues values; // ConfigParser fills it too

    ConfigBuilder(final ConfigValues values)
    {
        this.values = values;
    }

    /** @param action the action. @param admit see {@link FloodgateConfig#admitsWhenUnreachable}. @return this. */
    public FloodgateConfig.Builder admitWhenUnreachable(final Action action, final boolean admit)
    {
        values.admitWhenUnreachable[ConfigValues.row(action)] = admit;
        return (FloodgateConfig.Builder)this;
    }

    /** @param retryAfterMs see {@link FloodgateConfig#unreachableRetryAfterMs()}. @return this. */
    public FloodgateConfig.Builder unreachableRetryAfterMs(final long retryAfterMs)
    {
        values.unreachableRetryAfterMs = retryAfterMs;
        return (FloodgateConfig.Builder)this;
    }

    /** @param uri see {@link FloodgateConfig#clusterRedisUri()}; trimmed, so blank means none. @return this. */
    public FloodgateConfig.Builder clusterRedisUri(final String uri)
    {
        values.clusterRedisUri = Objects.requireNonNull(uri, "uri").trim();
        return (FloodgateConfig.Builder)this;
    }

    /**
     * @param action   the action.
     * @param limit    tokens per window across every node, see {@link FloodgateConfig#clusterLimit}.
     * @param windowMs the cluster window in milliseconds.
     * @return this.
     */
    public FloodgateConfig.Builder clusterLimit(final Action action, final long limit, final long windowMs)
    {
        values.changeCluster(action, cluster -> cluster.withLimit(limit, windowMs));
        return (FloodgateConfig.Builder)this;
    }

    /**
     * @param action the action.
     * @param tokens see {@link FloodgateConfig#clusterLease}; 0 (the default) for a tenth of the cluster limit.
     * @return this.
     */
    public FloodgateConfig.Builder clusterLease(final Action action, final long tokens)
    {
        values.changeCluster(action, cluster -> cluster.withLease(tokens));
        return (FloodgateConfig.Builder)this;
    }

    /** @param action the action. @param local see {@link FloodgateConfig#clusterFallsBackLocal}. @return this. */
    public FloodgateConfig.Builder clusterFallbackLocal(final Action action, final boolean local)
    {
        values.changeCluster(action, cluster -> cluster.withFallbackLocal(local));
        return (FloodgateConfig.Builder)this;
    }

    /** @param retryAfterMs see {@link FloodgateConfig#clusterRetryAfterMs()}. @return this. */
    public FloodgateConfig.Builder clusterRetryAfterMs(final long retryAfterMs)
    {
        values.clusterRetryAfterMs = retryAfterMs;
        return (FloodgateConfig.Builder)this;
    }

    /** @param groupReadable see {@link FloodgateConfig#groupReadable()}. @return this. */
    public FloodgateConfig.Builder groupReadable(final boolean groupReadable)
    {
        values.groupReadable = groupReadable;
        return (FloodgateConfig.Builder)this;
    }

    /** @param preTouch see {@link FloodgateConfig#preTouch()}. @return this. */
    public FloodgateConfig.Builder preTouch(final boolean preTouch)
    {
        values.preTouch = preTouch;
        return (FloodgateConfig.Builder)this;
    }

    /** @param graceMs see {@link FloodgateConfig#reclaimGraceMs()}. @return this. */
    public FloodgateConfig.Builder reclaimGraceMs(final long graceMs)
    {
        values.reclaimGraceMs = graceMs;
        return (FloodgateConfig.Builder)this;
    }

    /**
     * @param file see {@link FloodgateConfig#file()}: absolute, or {@link #build()} refuses it (each JVM would
     *             resolve a relative one against its own working directory).
     * @return this.
     */
    public FloodgateConfig.Builder file(final Path file)
    {
        values.setFile(Objects.requireNonNull(file, "file"));
        return (FloodgateConfig.Builder)this;
    }

    /** @param enabled see {@link FloodgateConfig#enabled()}. @return this. */
    public FloodgateConfig.Builder enabled(final boolean enabled)
    {
        values.enabled = enabled;
        return (FloodgateConfig.Builder)this;
    }

    /**
     * @param action   the action.
     * @param limit    requests per window, see {@link FloodgateConfig#limit}.
     * @param windowMs the window in milliseconds.
     * @return this.
     */
    public FloodgateConfig.Builder limit(final Action action, final long limit, final long windowMs)
    {
        values.limits[ConfigValues.row(action)] = new FloodgateConfig.Limit(limit, windowMs);
        return (FloodgateConfig.Builder)this;
    }

    /** @param action the action. @param shadow see {@link FloodgateConfig#shadow}. @return this. */
    public FloodgateConfig.Builder shadow(final Action action, final boolean shadow)
    {
        values.shadow[ConfigValues.row(action)] = shadow;
        return (FloodgateConfig.Builder)this;
    }

    /** @param cleanupIntervalMs see {@link FloodgateConfig#cleanupIntervalMs()}. @return this. */
    public FloodgateConfig.Builder cleanupIntervalMs(final long cleanupIntervalMs)
    {
        values.cleanupIntervalMs = cleanupIntervalMs;
        return (FloodgateConfig.Builder)this;
    }

    /** @param entries see {@link FloodgateConfig#capacity()}. @return this. */
    public FloodgateConfig.Builder capacity(final long entries)
    {
        values.capacity = entries;
        return (FloodgateConfig.Builder)this;
    }

    /** @param ticker see {@link FloodgateConfig#ticker()}. @return this. */
    public FloodgateConfig.Builder ticker(final Ticker ticker)
    {
        values.ticker = Objects.requireNonNull(ticker, "ticker");
        return (FloodgateConfig.Builder)this;
    }

    /**
     * @return the configuration.
     * @throws IllegalArgumentException naming the key and value of the first out-of-range setting.
     */
    public FloodgateConfig build()
    {
        return build(UnaryOperator.identity());
    }

    /** @param names a key to the name its errors use, as the caller's user spells it. */
    FloodgateConfig build(final UnaryOperator<String> names)
    {
        values.validate(names);
        return new FloodgateConfig(values.copy());
    }
}
