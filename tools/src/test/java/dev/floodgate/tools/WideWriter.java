package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/** Runs in its own JVM and refuses identifiers whose characters take two terminal columns each. */
public final class WideWriter
{
    /** Wide identifiers (CJK, Hangul, an emoji), and a narrow one of the same length in code points. */
    static final String[] IDS = {"用户名", "사용자", "\uD83D\uDE80ab", "abc"};

    private WideWriter()
    {
    }

    /** @param args the table file. */
    public static void main(final String[] args)
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(Path.of(args[0])).capacity(1000)
            .limit(Action.AUTH, 1, 3_600_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            for (final String id : IDS)
            {
                gate.checkLimit(id, Action.AUTH);
                gate.checkLimit(id, Action.AUTH);
            }
        }
    }
}
