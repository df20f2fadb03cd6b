package dev.floodgate;

/**
 * One action's cluster quota settings (issue 12) as configured: the limit and window across every node, the
 * tokens a node leases at a time and whether a check falls back on the node's quota while Redis is unavailable.
 * One value, so a builder or the parser replaces one part of it and the check, the lease size and the text are
 * written once. The URI, which switches every action's cluster quota on or off, is {@link ConfigValues}'s.
 *
 * @param limit         tokens per window across every node; a limit or window of 0: no cluster quota.
 * @param lease         the tokens a node leases at a time; 0 for a tenth of the limit.
 * @param fallbackLocal true to admit on the node's quota alone while Redis is unavailable.
 */
record ClusterSettings(FloodgateConfig.Limit limit, long lease, boolean fallbackLocal)
{
    /** @return {@code action}'s defaults: no cluster limit, the node's window, refuse for the login controls. */
    static ClusterSettings defaults(final Action action)
    {
        return new ClusterSettings(new FloodgateConfig.Limit(0, action.defaultWindowMs()), 0,
            ClusterKeys.defaultFallbackLocal(action));
    }

    ClusterSettings withLimit(final long limit, final long windowMs)
    {
        return new ClusterSettings(new FloodgateConfig.Limit(limit, windowMs), lease, fallbackLocal);
    }

    ClusterSettings withLease(final long lease)
    {
        return new ClusterSettings(limit, lease, fallbackLocal);
    }

    ClusterSettings withFallbackLocal(final boolean fallbackLocal)
    {
        return new ClusterSettings(limit, lease, fallbackLocal);
    }

    /** @return whether the limit and window switch the action's cluster quota on, given a URI. */
    boolean isOn()
    {
        return ClusterKeys.isOn(limit.limit(), limit.windowMs());
    }

    /** @return the tokens one lease asks for: as configured, or a tenth of the limit (at least 1). */
    long leaseSize()
    {
        return ClusterKeys.leaseSize(limit.limit(), lease);
    }

    /**
     * @param nodeLimit the action's node limit, which must be on for a cluster quota to be spent through it.
     * @throws IllegalArgumentException as {@link ClusterKeys#validate} does.
     */
    void validate(final Action action, final long nodeLimit)
    {
        ClusterKeys.validate(action, limit.limit(), limit.windowMs(), lease, nodeLimit);
    }

    /** @return e.g. {@code 1000/60000ms lease 100 local}, as {@link FloodgateConfig#toString()} shows it. */
    String text()
    {
        return limit.limit() + "/" + limit.windowMs() + "ms lease " + leaseSize() +
            (fallbackLocal ? " local" : " refuse");
    }
}
