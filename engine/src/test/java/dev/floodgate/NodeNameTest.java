package dev.floodgate;

import dev.floodgate.store.BootId;
import dev.floodgate.store.FileHeader;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The node's name in Redis ({@code ClusterWiring.nodeName}) was {@code fg-<boot id>-<file creation wall ms>}: two
 * table files made on one host (two services, or two pods: containers share the kernel's boot id) in the same
 * millisecond were two nodes with one name. The lease script keeps one {@code n:<node>} record per bucket and answers
 * a request whose (seq, op, amount) equals it as REPLAYED without taking tokens, so the two nodes' sequences for a
 * bucket (each started at the wall clock's ms x 1000) could hand one grant to both. Found by review; failed before.
 */
class NodeNameTest
{
    @Test
    void shouldNameTwoFilesMadeInTheSameMillisecondDifferently() throws Exception
    {
        final Method initialise = FileHeader.class.getDeclaredMethod("initialise", AtomicBuffer.class, int.class,
            long.class, BootId.class, long.class, long.class, long.class);
        initialise.setAccessible(true);
        final BootId host = new BootId(0x1234L, 0x5678L);
        FileHeader first;
        FileHeader second;
        int tries = 0;
        do
        {
            first = new FileHeader(new UnsafeBuffer(new byte[FileHeader.LENGTH]));
            second = new FileHeader(new UnsafeBuffer(new byte[FileHeader.LENGTH]));
            initialise.invoke(null, first.buffer(), 4, 1_000L, host, 11L, 12L, 1L); // one file's random secret...
            initialise.invoke(null, second.buffer(), 4, 1_000L, host, 21L, 22L, 2L); // ...and another's
        }
        while (first.createdWallMs() != second.createdWallMs() && ++tries < 1_000);
        assertEquals(first.createdWallMs(), second.createdWallMs(), "made in one millisecond");

        assertNotEquals(ClusterWiring.nodeName(first), ClusterWiring.nodeName(second),
            "two files, two nodes: they must not share a name (and so a sequence record) in Redis");
    }
}
