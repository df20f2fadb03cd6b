package dev.floodgate.testkit;

import dev.floodgate.FloodgateConfig;

import java.util.List;

/**
 * A rival JVM building the table (a {@link TableAttacher} under the debugger, creating a missing table or replacing a
 * previous boot's) and stopped once its table's room is taken, at the first entry of {@code FileHeader.initialise},
 * while a broker in this JVM starts beside it (an {@link OpenerThread}) until that broker's own build has failed and
 * it waits for the rival's table ({@link OpenerThread#awaitWaitingForRival}: a broker that ends first, or is not
 * waiting within a minute, fails the test); then the rival goes on to its end.
 */
public final class RivalBuild
{
    private final OpenerThread opener;
    private final String log;

    private RivalBuild(final OpenerThread opener, final String log)
    {
        this.opener = opener;
        this.log = log;
    }

    /**
     * @param config the broker's config: its file and capacity are the rival's too.
     * @param use    what the broker does with its gate once open.
     * @return the broker, maybe still opening, and the rival's transcript.
     */
    public static RivalBuild openBeside(final FloodgateConfig config, final OpenerThread.Use use) throws Exception
    {
        final OpenerThread[] opener = {null};
        try (DebuggedChild rival = DebuggedChild.start(TableAttacher.class,
            List.of(config.file().toString(), Long.toString(config.capacity()))))
        {
            rival.runStoppingAtEntry("dev.floodgate.store.FileHeader", "initialise", hit ->
            {
                if (opener[0] != null)
                {
                    return;
                }
                // the rival has its table's room; a broker starts beside it
                opener[0] = OpenerThread.start(config, use);
                opener[0].awaitWaitingForRival(60); // then the rival goes on
            });
            return new RivalBuild(opener[0], rival.transcript());
        }
    }

    /** @return the broker started beside the rival, or null when the rival never built. */
    public OpenerThread opener()
    {
        return opener;
    }

    /** @return what the rival printed: {@code OPENED <inode> <still at its path>} once it opened. */
    public String log()
    {
        return log;
    }
}
