package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.GoFile;
import dev.floodgate.testkit.OpenerThread;
import dev.floodgate.testkit.PreviousBootTable;
import dev.floodgate.testkit.SmallTmpfs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * An older engine replaces a table from a previous boot by building its replacement under the replace lock, holding
 * no creator lock. A JVM of this engine starting beside it on a file system with room for the old table and one
 * replacement builds its own, fails for room, and waits only while a creator lock is held: it found none, and did not
 * start, though the older engine's replacement was about to be there (the replace lock's 30 s wait was raised for that
 * very rival). Found by review; fails before the fix. Needs root (a small tmpfs is mounted for it); skipped elsewhere.
 */
@Timeout(180)
class OlderReplacerRoomTest
{
    private static final long CAPACITY = 20_000; // a table of about 8 MB

    @TempDir
    Path dir;

    /** An older engine's replacer: builds {@code .t.map.fresh} under the replace lock and renames it on a go file. */
    public static final class OlderReplacer
    {
        public static void main(final String[] args) throws Exception
        {
            final Path file = Path.of(args[0]);
            final Path fresh = file.resolveSibling("." + file.getFileName() + ".fresh");
            final SlotLocks locks = SlotLocks.acquire(file, false);
            locks.building().underReplaceLock(() ->
            {
                try (QuotaTable table = QuotaTable.open(fresh, CAPACITY, 2, false, System.nanoTime()))
                {
                    System.out.println("BUILT " + Files.getAttribute(fresh, "unix:ino"));
                }
                GoFile.await(Path.of(args[1]));
                Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            });
            locks.release();
            System.out.println("REPLACED");
        }
    }

    @Test
    void shouldStartBesideAnOlderEngineReplacingUnderTheReplaceLock() throws Exception
    {
        try (SmallTmpfs tmpfs = SmallTmpfs.mount(dir, 20))
        {
            final Path file = tmpfs.resolve("fg").resolve("t.map");
            PreviousBootTable.create(file, CAPACITY);
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.AUTH, 1, FloodgateConfig.MAX_WINDOW_MS).build();
            final Path go = dir.resolve("go");
            try (ChildJvm older = ChildJvm.start(OlderReplacer.class, file.toString(), go.toString()))
            {
                final String built = older.awaitLine("BUILT ", 60).substring("BUILT ".length());
                final OpenerThread opener = OpenerThread.start(config,
                    gate -> assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH)));
                opener.awaitWaitingForRival(60); // its own build failed; then the older engine renames
                Files.createFile(go);
                older.awaitLine("REPLACED", 60);
                opener.join(60_000);
                assertFalse(opener.isAlive(), "the open ended once the older engine's replacement was there");
                assertNull(opener.failure(), () -> "the open failed: " + opener.failure());
                assertEquals(built, String.valueOf(opener.attachedInode()), "the older engine's replacement is used");
            }
        }
    }
}
