package dev.floodgate.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.Collection;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CI runs no benchmark beyond this: one benchmark, one short iteration, in this JVM (surefire gives it the
 * engine's flags), so that a broken benchmark, a missing generated class or a failing setup fails the build.
 * It measures nothing worth reading.
 */
class BenchmarkSmokeTest
{
    @Test
    void shouldRunOneBenchmarkAndReturnAResult() throws Exception
    {
        final Options options = new OptionsBuilder()
            .include(HotKeyBenchmark.class.getName() + ".checkLimitInCaller$")
            .forks(0)
            .threads(1)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(200))
            .shouldFailOnError(true)
            .build();

        final Collection<RunResult> results = new Runner(options).run();

        assertEquals(1, results.size());
        final RunResult result = results.iterator().next();
        assertTrue(result.getPrimaryResult().getScore() > 0, "a positive time per call");
        final Report report = new Report(List.of(result));
        assertTrue(report.markdown().contains("`HotKey.checkLimitInCaller`"), report.markdown());
    }
}
