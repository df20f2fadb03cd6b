package dev.floodgate.jmh;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.ByteBuffer;

/**
 * One off-heap word on a cache line of its own, spent by compare-and-set as a lease's balance is: the floor beside
 * {@link ClusterBenchmark}'s clustered cells ({@link ClusterBenchmark#nodeCheckLimitPlusOneCas}).
 */
@State(Scope.Thread)
public class OneWord
{
    private static final int LINE = 64;
    private static final long FULL = 1L << 40;

    final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(3 * LINE));
    int offset;

    @Setup(Level.Trial)
    public void setUp()
    {
        offset = (int)(LINE - (buffer.addressOffset() & (LINE - 1))) + LINE;
        buffer.putLongVolatile(offset, FULL);
    }

    /** @return 0, having taken one from the word (refilled when it runs out, as a lease is). */
    long spend()
    {
        while (true)
        {
            final long balance = buffer.getLongVolatile(offset);
            final long next = balance > 0 ? balance - 1 : FULL;
            if (buffer.compareAndSetLong(offset, balance, next))
            {
                return 0;
            }
        }
    }
}
