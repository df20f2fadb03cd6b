package dev.floodgate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code FLOODGATE_*} environment variables and {@code floodgate.*} system properties that name no key: a
 * misspelling ({@code FLOODGATE_PUBLISH_RATE_LIMT}) would otherwise be ignored without a word. They are warned
 * about, not refused: the project's own tools and tests, and any other product, read names with the same prefix.
 * Run once per read of the environment ({@link ConfigParser#fromSources}), never on a check. Stateless.
 */
final class UnknownNames
{
    static final String ENV_PREFIX = "FLOODGATE_";
    static final String PROPERTY_PREFIX = "floodgate.";

    /** Names with the prefix the project reads that are not keys: none of them is warned about. */
    static final Set<String> OTHERS = Set.of(
        Floodgate.POLICY_ENV, Floodgate.POLICY_PROPERTY,    // the engine: publish or adopt the policy
        "FLOODGATE_REBUILD", "FLOODGATE_REDIS_ENSURE",      // the tools: the launcher, the local Redis
        "floodgate.redis.port",                             // the benchmarks
        "floodgate.seed", "floodgate.mix.seed", "floodgate.model.seed",
        "floodgate.crash.kills", "floodgate.crash.seed");   // the tests

    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private UnknownNames()
    {
    }

    /** Logs one warning per name {@link #warnings} returns. */
    static void warn(final Map<String, String> env, final Properties properties)
    {
        for (final String warning : warnings(env, properties))
        {
            LOG.log(System.Logger.Level.WARNING, warning);
        }
    }

    /**
     * @return one sentence per environment variable starting {@code FLOODGATE_} and per system property starting
     * {@code floodgate.} that the configuration does not read, naming it and the key it is closest to when one
     * is at most {@link KeySpelling#MAX_EDITS} edits away (case aside); in name order, variables first.
     */
    static List<String> warnings(final Map<String, String> env, final Properties properties)
    {
        final String[] keys = ConfigKeys.keys();
        final Set<String> knownEnv = new TreeSet<>(OTHERS);
        final Set<String> knownProperties = new TreeSet<>(OTHERS);
        for (final String key : keys)
        {
            knownEnv.add(ENV_PREFIX + key.toUpperCase(Locale.ROOT));
            knownProperties.add(PROPERTY_PREFIX + key);
        }
        final List<String> warnings = new ArrayList<>();
        for (final String name : new TreeSet<>(env.keySet()))
        {
            if (name.startsWith(ENV_PREFIX) && !knownEnv.contains(name))
            {
                final String meant = KeySpelling.closest(name.substring(ENV_PREFIX.length()), keys);
                warnings.add(sentence("environment variable " + name,
                    meant == null ? null : ENV_PREFIX + meant.toUpperCase(Locale.ROOT)));
            }
        }
        for (final String name : new TreeSet<>(properties.stringPropertyNames()))
        {
            if (name.startsWith(PROPERTY_PREFIX) && !knownProperties.contains(name))
            {
                final String meant = KeySpelling.closest(name.substring(PROPERTY_PREFIX.length()), keys);
                warnings.add(sentence("system property " + name, meant == null ? null : PROPERTY_PREFIX + meant));
            }
        }
        return warnings;
    }

    private static String sentence(final String what, final String meant)
    {
        return what + " is not a Floodgate configuration key and is ignored" +
            (meant == null ? "" : "; did you mean " + meant + "?");
    }
}
