package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FloodgateTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
    private Floodgate gate;

    @BeforeEach
    void open()
    {
        gate = Floodgate.open(config().build());
    }

    @AfterEach
    void close()
    {
        gate.close();
    }

    private FloodgateConfig.Builder config()
    {
        return FloodgateConfig.builder().file(dir.resolve("quota.map")).capacity(10_000).ticker(ticker)
            .limit(Action.PUBLISH, 5, 1_000).limit(Action.SUBSCRIBE, 3, 60_000).reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
    }

    enum Door
    {
        BUCKET(Floodgate::checkLimit), WINDOW(Floodgate::checkLimitInCaller);

        final Check check;

        Door(final Check check)
        {
            this.check = check;
        }

        interface Check
        {
            long apply(Floodgate gate, CharSequence identifier, Action action);
        }
    }

    private int admitted(final Door door, final String identifier, final Action action, final int attempts)
    {
        return admitted(gate, door, identifier, action, attempts);
    }

    private static int admitted(final Floodgate gate, final Door door, final String identifier, final Action action,
        final int attempts)
    {
        int admitted = 0;
        for (int i = 0; i < attempts; i++)
        {
            if (door.check.apply(gate, identifier, action) == Floodgate.ADMITTED)
            {
                admitted++;
            }
        }
        return admitted;
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldAdmitExactlyTheLimitAndCountEveryRefusal(final Door door)
    {
        assertEquals(10, admitted(door, "10.0.0.1", Action.AUTH, 25));
        assertEquals(15, gate.blockedCount("10.0.0.1", Action.AUTH));
        assertEquals(5, admitted(door, "alice", Action.PUBLISH, 9));
        assertEquals(4, gate.blockedCount("alice", Action.PUBLISH));
        assertEquals(0, gate.blockedCount("bob", Action.PUBLISH));
    }

    @Test
    void shouldRefillTheBucketContinuouslyAndSayWhenTheNextTokenComes()
    {
        assertEquals(10, admitted(Door.BUCKET, "ip", Action.AUTH, 10));
        assertEquals(6_000, gate.checkLimit("ip", Action.AUTH), "10 per 60 s: one token every 6 s");
        ticker.advanceMs(1_500);
        assertEquals(4_500, gate.checkLimit("ip", Action.AUTH));
        ticker.advanceMs(4_500);
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("ip", Action.AUTH));
        assertEquals(6_000, gate.checkLimit("ip", Action.AUTH));
        ticker.advanceMs(60_000);
        assertEquals(10, admitted(Door.BUCKET, "ip", Action.AUTH, 20), "refills to capacity, never beyond");
    }

    @Test
    void shouldStartAFreshQuotaEachWindowAndReportTheTimeToTheWindowsEnd()
    {
        final long windowStart = (ticker.nanos() / MS / 1_000 + 1) * 1_000 * MS;
        ticker.set(windowStart + 250 * MS);
        assertEquals(5, admitted(Door.WINDOW, "alice", Action.PUBLISH, 5));
        assertEquals(750, gate.checkLimitInCaller("alice", Action.PUBLISH));
        ticker.advanceMs(749);
        assertEquals(1, gate.checkLimitInCaller("alice", Action.PUBLISH));
        ticker.advanceMs(1);
        assertEquals(5, admitted(Door.WINDOW, "alice", Action.PUBLISH, 8), "a new window, a new quota");
    }

    @Test
    void shouldKeepTheTwoDoorsApartForTheSameIdentifierAndAction()
    {
        assertEquals(3, admitted(Door.WINDOW, "carol", Action.SUBSCRIBE, 5));
        assertEquals(3, admitted(Door.BUCKET, "carol", Action.SUBSCRIBE, 5));
        final Stats stats = gate.stats();
        assertEquals(1, stats.buckets());
        assertEquals(1, stats.windowCounters());
        assertEquals(1, stats.blockedEntries(), "refusals of both doors count in one blocked counter");
        assertEquals(4, gate.blockedCount("carol", Action.SUBSCRIBE));
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldAdmitAnUnconfiguredActionWithoutTouchingTheTable(final Door door)
    {
        gate.reconfigure(config().limit(Action.PUBLISH, 0, 1_000).limit(Action.DASHBOARD_API, 0, 1_000).build());
        ticker.advanceMs(60_000); // the window door switches off at the end of the window in force (a minute here)
        assertEquals(1_000, admitted(door, "alice", Action.PUBLISH, 1_000));
        assertEquals(1_000, admitted(door, "session", Action.DASHBOARD_API, 1_000));
        assertEquals(0, gate.stats().entries());
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldAdmitEverythingAndTouchNothingWhenDisabled(final Door door)
    {
        gate.close();
        gate = Floodgate.open(config().enabled(false).build());
        assertEquals(100, admitted(door, "10.0.0.9", Action.AUTH, 100));
        assertEquals(0, gate.stats().entries());
        gate.close();
        // before: a switched-off engine admitted after close without looking, against close()'s contract
        assertThrows(IllegalStateException.class, () -> door.check.apply(gate, "10.0.0.9", Action.AUTH));
        assertThrows(IllegalStateException.class, () -> gate.quota("10.0.0.9", Action.AUTH));
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldForgetEverythingOnResetAndStartAfresh(final Door door)
    {
        admitted(door, "10.0.0.2", Action.AUTH, 12);
        assertEquals(List.of(door == Door.BUCKET ? "bucket" : "window", "blocked"),
            gate.resetEntries("10.0.0.2", Action.AUTH));
        assertEquals(0, gate.blockedCount("10.0.0.2", Action.AUTH));
        assertEquals(10, admitted(door, "10.0.0.2", Action.AUTH, 12), "a full quota after reset");
        assertEquals(2, gate.blockedCount("10.0.0.2", Action.AUTH));
        assertEquals(List.of(), gate.resetEntries("never-seen", Action.AUTH));
    }

    @Test
    void shouldRefundNothingWhenTheProcessReopensTheFile()
    {
        assertEquals(10, admitted(Door.BUCKET, "10.0.0.3", Action.AUTH, 10));
        assertEquals(3, admitted(Door.WINDOW, "dave", Action.SUBSCRIBE, 3));
        gate.close();
        gate = Floodgate.open(config().build());
        assertEquals(0, admitted(Door.BUCKET, "10.0.0.3", Action.AUTH, 5));
        assertEquals(0, admitted(Door.WINDOW, "dave", Action.SUBSCRIBE, 5));
    }

    @Test
    void shouldRankTheMostBlockedIdentifiers()
    {
        admitted(Door.BUCKET, "a", Action.AUTH, 13);
        admitted(Door.BUCKET, "b", Action.AUTH, 17);
        admitted(Door.BUCKET, "c", Action.AUTH, 11);
        admitted(Door.BUCKET, "d", Action.DASHBOARD_AUTH, 30);
        assertEquals(List.of(new BlockedEntry("b", 7), new BlockedEntry("a", 3)), gate.topBlocked(Action.AUTH, 2));
        assertEquals(3, gate.topBlocked(Action.AUTH, 10).size());
        assertEquals(List.of(), gate.topBlocked(Action.PUBLISH, 10));
        assertThrows(IllegalArgumentException.class, () -> gate.topBlocked(Action.AUTH, -1));
    }

    @Test
    void shouldReapIdleEntriesOnlyAfterTheGracePeriodAndKeepLiveOnes()
    {
        admitted(Door.BUCKET, "idle", Action.AUTH, 1);
        admitted(Door.BUCKET, "busy", Action.AUTH, 10);
        admitted(Door.WINDOW, "alice", Action.PUBLISH, 1);
        assertEquals(0, gate.cleanup(), "nothing is idle yet: the buckets are not full, the window is current");
        ticker.advanceMs(6_000); // "idle" has refilled completely; "busy" still owes 9 tokens; the window is over
        assertEquals(0, gate.cleanup(), "first pass only tombstones");
        assertEquals(2, gate.stats().tombstoned());
        ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS - 1);
        assertEquals(0, gate.cleanup(), "still within the grace period");
        ticker.advanceMs(1);
        assertEquals(2, gate.cleanup());
        final Stats stats = gate.stats();
        assertEquals(1, stats.buckets());
        assertEquals(0, stats.windowCounters());
        assertEquals(0, stats.tombstoned());
        assertEquals(2, stats.reaped());
        assertEquals(1, admitted(Door.BUCKET, "busy", Action.AUTH, 5), "the live bucket kept its state: 7 s, 1 token");
    }

    @Test
    void shouldReviveATombstonedEntryThatIsCheckedAgainWithItsState()
    {
        admitted(Door.BUCKET, "10.0.0.4", Action.AUTH, 1);
        ticker.advanceMs(6_000);
        gate.cleanup();
        assertEquals(1, gate.stats().tombstoned());
        assertEquals(10, admitted(Door.BUCKET, "10.0.0.4", Action.AUTH, 10), "revived, full as it was");
        ticker.advanceMs(1_000);
        assertEquals(0, gate.cleanup(), "a revived entry is not removed");
        assertEquals(1, gate.stats().buckets());
        assertEquals(1, gate.stats().revived());
        assertTrue(gate.checkLimit("10.0.0.4", Action.AUTH) >= 1, "and it kept counting");
    }

    @Test
    void shouldReapBlockedCountersWithTheirBucketForDashboardSessionsAndAfterADayOtherwise()
    {
        final String session = Floodgate.sessionDigest("token-1");
        assertEquals(300, admitted(Door.BUCKET, session, Action.DASHBOARD_API, 301));
        admitted(Door.BUCKET, "10.0.0.5", Action.AUTH, 11);
        ticker.advanceMs(60_000); // both buckets full again
        gate.cleanup();           // tombstones both buckets
        ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
        gate.cleanup();           // removes the buckets; the session's blocked counter is now orphaned
        ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
        gate.cleanup();
        ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
        gate.cleanup();
        assertEquals(0, gate.blockedCount(session, Action.DASHBOARD_API), "went with its bucket");
        assertEquals(1, gate.blockedCount("10.0.0.5", Action.AUTH), "kept for a day");
        ticker.advanceMs(24 * 3_600_000L);
        gate.cleanup();
        ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
        gate.cleanup();
        assertEquals(0, gate.blockedCount("10.0.0.5", Action.AUTH));
        assertEquals(0, gate.stats().entries());
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldRefuseBadIdentifiersClearly(final Door door)
    {
        final NullPointerException nil = assertThrows(NullPointerException.class,
            () -> door.check.apply(gate, null, Action.AUTH));
        assertTrue(nil.getMessage().contains("identifier"));
        final IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
            () -> door.check.apply(gate, "", Action.AUTH));
        assertTrue(empty.getMessage().contains("empty"));
        assertThrows(NullPointerException.class, () -> door.check.apply(gate, "x", null));
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldLimitAHugeIdentifierLikeAnyOtherAndLabelItsPrefix(final Door door)
    {
        final String huge = "u".repeat(1 << 20);
        final String other = "u".repeat((1 << 20) - 1) + "v";
        assertEquals(10, admitted(door, huge, Action.AUTH, 12));
        assertEquals(10, admitted(door, other, Action.AUTH, 12), "differs only in its last character");
        final List<BlockedEntry> top = gate.topBlocked(Action.AUTH, 5);
        assertEquals(2, top.size());
        assertEquals("u".repeat(48), top.get(0).identifier());
    }

    @Test
    void shouldDigestSessionTokensSoTheTokenNeverReachesTheFile() throws Exception
    {
        assertEquals("ungWv48Bz-pBQUDeXa4iIw", Floodgate.sessionDigest("abc"));
        assertEquals("Tumoca4csFFm8S_BWVm8Kg", Floodgate.sessionDigest("sessão-token"));
        final String token = "secret-session-token-0123456789";
        admitted(Door.BUCKET, Floodgate.sessionDigest(token), Action.DASHBOARD_API, 301);
        final String file = new String(Files.readAllBytes(dir.resolve("quota.map")), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(file.contains(Floodgate.sessionDigest(token)));
        assertTrue(!file.contains(token));
    }

    @Test
    void shouldCreateTheFileReadableByItsOwnerOnly() throws Exception
    {
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("quota.map"))));
    }

    @Test
    void shouldRefuseAFileThatIsNotAFloodgateTable() throws Exception
    {
        final Path garbage = dir.resolve("garbage.map");
        final byte[] bytes = new byte[64 * 1024];
        new java.util.Random(7).nextBytes(bytes);
        Files.write(garbage, bytes);
        final RuntimeException error = assertThrows(RuntimeException.class,
            () -> Floodgate.open(config().file(garbage).build()));
        assertTrue(error.getMessage().contains(garbage.toString()), error.getMessage());
        final Path empty = Files.createFile(dir.resolve("empty.map"));
        assertTrue(assertThrows(RuntimeException.class, () -> Floodgate.open(config().file(empty).build()))
            .getMessage().contains("empty"));
        assertTrue(assertThrows(RuntimeException.class, () -> Floodgate.open(config().file(dir).build()))
            .getMessage().contains("not a regular file"));
    }

    @Test
    void shouldReplaceAFileWrittenUnderAPreviousBoot() throws Exception
    {
        // its own file, written without a Floodgate: a closed Floodgate keeps its mapping (and Chronicle's handle
        // on the path) until it is unreachable, and no JVM outlives a boot, so no real opener meets its own
        final java.nio.file.Path file = dir.resolve("old-boot.map");
        try (dev.floodgate.store.QuotaTable table = dev.floodgate.store.QuotaTable.open(file, 10_000, 2, false, 0))
        {
            table.header().buffer().putLong(dev.floodgate.store.FileHeader.BOOT_ID_OFFSET, 12345L);
            table.header().addCounter(dev.floodgate.store.FileHeader.REAPED_OFFSET, 7); // state to lose
        }
        final Object staleInode = java.nio.file.Files.getAttribute(file, "unix:ino");
        try (Floodgate fresh = Floodgate.open(config().file(file).build()))
        {
            assertEquals(0, fresh.stats().reaped(), "a fresh table");
            assertEquals(10, admitted(fresh, Door.BUCKET, "10.0.0.6", Action.AUTH, 10));
        }
        assertTrue(!staleInode.equals(java.nio.file.Files.getAttribute(file, "unix:ino")), "the file was replaced");
    }

    @ParameterizedTest
    @EnumSource(Door.class)
    void shouldRefuseChecksAfterCloseInsteadOfTouchingUnmappedMemory(final Door door)
    {
        gate.close();
        final IllegalStateException error = assertThrows(IllegalStateException.class,
            () -> door.check.apply(gate, "late", Action.AUTH));
        assertTrue(error.getMessage().contains("closed"), error.getMessage());
        gate.close(); // idempotent
        gate = Floodgate.open(config().build());
    }

    @Test
    void shouldFixTheShardCountInTheFileForEveryProcess()
    {
        assertEquals(Runtime.getRuntime().availableProcessors(), gate.shards());
        assertEquals(gate.shards(), gate.stats().shards());
    }

}
