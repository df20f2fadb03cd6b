package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;

/**
 * The gates a test opens, often several on one table each on its own clock (two JVMs, one a tick behind), closed
 * after each test. A test class registers it as a field:
 * <pre>{@code @RegisterExtension final OpenGates gates = new OpenGates();}</pre>
 */
public final class OpenGates implements AfterEachCallback
{
    private final List<Floodgate> gates = new ArrayList<>();

    /** @return a gate opened on {@code config}, closed after the test. */
    public Floodgate open(final FloodgateConfig config)
    {
        final Floodgate gate = Floodgate.open(config);
        gates.add(gate);
        return gate;
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        gates.forEach(Floodgate::close);
        gates.clear();
    }
}
