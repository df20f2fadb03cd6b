package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.util.HashMap;
import java.util.Map;

/**
 * A JVM without any cluster key that changes policy keys of a table's policy in force, as an operator's
 * {@code floodgate policy set} or another service's {@code reconfigure} does, then prints {@code PUBLISHED policy}
 * and exits.
 *
 * <pre>
 * args: file key=value...
 * </pre>
 */
public final class PolicyKeysChild
{
    private PolicyKeysChild()
    {
    }

    public static void main(final String[] args)
    {
        final Map<String, String> keys = new HashMap<>();
        for (int i = 1; i < args.length; i++)
        {
            final int eq = args[i].indexOf('=');
            keys.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        final FloodgateConfig config = FloodgateConfig.builder().file(java.nio.file.Path.of(args[0])).build();
        try (Floodgate gate = Floodgate.openAdopting(config))
        {
            System.out.println("PUBLISHED " + gate.reconfigure(gate.policy().applyTo(gate.config())
                .withPolicyKeys(keys)));
        }
    }
}
