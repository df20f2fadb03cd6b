package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Signals;
import dev.floodgate.testkit.Inserter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One JVM is frozen with SIGSTOP again and again while it inserts new keys, as a GC pause, a debugger or a
 * descheduled container would freeze it inside a table operation. The other JVM's checks of fresh IPs and fresh
 * users must not pay for it beyond the cold checks that need exactly what the frozen one holds: no check is
 * admitted uncounted (no PUBLISH user beyond its limit), no refusal says "retry in a minute", and most fresh IPs
 * (a full bucket each) are admitted. Prints the figures for NOTES.md.
 */
@Timeout(300)
class PauseTest
{
    private static final int FREEZES = 20;
    private static final long FROZEN_MS = 400;
    private static final long PUBLISH_LIMIT = 3;
    private static final int PROBES = 200; // fresh IPs and fresh users per freeze: the table stays far from full

    @TempDir
    Path dir;

    @Test
    void shouldCostOthersOnlyWhatTheFrozenJvmHolds() throws Exception
    {
        final Path file = dir.resolve("pause.map");
        final Path stop = dir.resolve("stop");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(200_000)
            .limit(Action.PUBLISH, PUBLISH_LIMIT, FloodgateConfig.MAX_WINDOW_MS).build();
        long ips = 0;
        long ipsAdmitted = 0;
        long ipsRefusedLong = 0;
        long users = 0;
        long usersOverLimit = 0;
        long freezesWithNoIpAdmitted = 0;
        final StringBuilder perFreeze = new StringBuilder();
        try (Floodgate gate = Floodgate.open(config);
            ChildJvm inserter = ChildJvm.start(Inserter.class, file.toString(), stop.toString()))
        {
            inserter.awaitLine("READY", 120);
            for (int freeze = 0; freeze < FREEZES; freeze++)
            {
                Signals.send("STOP", inserter.pid());
                final long thaw = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FROZEN_MS);
                long admittedThisFreeze = 0;
                for (int probe = 0; probe < PROBES && System.nanoTime() < thaw; probe++)
                {
                    final long ip = gate.checkLimit("10." + freeze + "." + ips / 250 + "." + ips % 250, Action.AUTH);
                    ips++;
                    admittedThisFreeze += ip == Floodgate.ADMITTED ? 1 : 0;
                    ipsRefusedLong += ip > config.unreachableRetryAfterMs() ? 1 : 0;
                    final String user = "user-" + freeze + "-" + users++;
                    int admitted = 0;
                    for (int i = 0; i < PUBLISH_LIMIT + 2; i++)
                    {
                        admitted += gate.checkLimitInCaller(user, Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
                    }
                    usersOverLimit += admitted > PUBLISH_LIMIT ? 1 : 0;
                }
                ipsAdmitted += admittedThisFreeze;
                freezesWithNoIpAdmitted += admittedThisFreeze == 0 ? 1 : 0;
                final long left = thaw - System.nanoTime();
                if (left > 0)
                {
                    LockSupport.parkNanos(left); // the freeze lasts its whole length whatever the probes took
                }
                perFreeze.append(' ').append(admittedThisFreeze);
                Signals.send("CONT", inserter.pid());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // the scenario: it runs, then freezes again
            }
            Files.createFile(stop);
            inserter.awaitLine("RESULT", 60);
            assertEquals(0, inserter.awaitExit(30), inserter.transcript());
            final Stats stats = gate.stats();
            System.out.printf("PAUSE freezes=%d frozenMs=%d freshIps=%d admitted=%d (%.1f%%) refusedLong=%d " +
                    "freezesWithNoIpAdmitted=%d users=%d usersOverLimit=%d unreachable(AUTH)=%d unreachable(PUBLISH)=%d " +
                "tableFull=%d admittedPerFreeze=[%s ]%n",
                FREEZES, FROZEN_MS, ips, ipsAdmitted, 100.0 * ipsAdmitted / Math.max(1, ips), ipsRefusedLong,
                freezesWithNoIpAdmitted, users, usersOverLimit, stats.degraded().get(Action.AUTH),
                stats.degraded().get(Action.PUBLISH), stats.tableFullEvents(), perFreeze);
            assertEquals(0, usersOverLimit, "no PUBLISH user is admitted beyond its limit");
            assertEquals(0, ipsRefusedLong, "a fresh IP is never told to come back after a whole window");
            assertEquals(ips - ipsAdmitted, stats.degraded().get(Action.AUTH),
                "a fresh IP (a full bucket) is refused only when its segment was unreachable, and counted");
            assertEquals(0, freezesWithNoIpAdmitted, "no freeze stopped every fresh login node-wide");
        }
    }
}
