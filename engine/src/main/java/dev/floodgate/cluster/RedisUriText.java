package dev.floodgate.cluster;

/**
 * A Redis URI as errors and logs show it: without the password of its user info. Lettuce-free, so the configuration
 * uses it too without the client on the class path. Stateless.
 */
public final class RedisUriText
{
    private RedisUriText()
    {
    }

    /**
     * @param uri a URI as the operator wrote it.
     * @return it with the user info cut at the authority's last '@' (a password may hold one) replaced by
     * {@code ***}; unchanged when it has none.
     */
    public static String redacted(final String uri)
    {
        final int scheme = uri.indexOf("://");
        if (scheme < 0)
        {
            return uri;
        }
        final int slash = uri.indexOf('/', scheme + 3);
        final int at = uri.lastIndexOf('@', slash < 0 ? uri.length() - 1 : slash);
        return at < scheme ? uri : uri.substring(0, scheme + 3) + "***" + uri.substring(at);
    }
}
