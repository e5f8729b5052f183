package dev.ratelimit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratelimit.benchmarks.support.CpuTimeProfiler;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The smoke run of {@code mvn verify}: every benchmark, in every mode it declares, once and briefly
 * (no fork, no warm-up, one 100 ms iteration, small parameters), with the profilers the full run
 * uses, so that none of them rots. A benchmark that throws (a peer's API changed, Redis does not start,
 * a refusal where every call must be allowed) fails the build. The numbers mean nothing.
 */
class BenchmarksSmokeTest {

    private static final String INCLUDE = "dev\\.ratelimit\\.benchmarks\\..*";

    @Test
    void everyBenchmarkRunsOnceWithoutError() throws Exception {
        Options options = new OptionsBuilder()
                .include(INCLUDE)
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .param("instances", "1000")    // Footprint: limiters measured together
                .param("partitions", "20000")  // MillionPartitions: the flood of keys
                .param("acquires", "50")       // RedisCommands: acquires per thread
                .addProfiler(GCProfiler.class)
                .addProfiler(CpuTimeProfiler.class)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();

        Collection<RunResult> results = new Runner(options).run();

        Set<String> expected = BenchmarkList.defaultList()
                .find(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), List.of(INCLUDE), List.of())
                .stream().map(e -> e.getUsername() + " " + e.getMode()).collect(Collectors.toCollection(TreeSet::new));
        Set<String> ran = results.stream()
                .map(r -> r.getParams().getBenchmark() + " " + r.getParams().getMode())
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(expected.size() >= 60, "benchmarks found: " + expected);
        assertEquals(expected, ran, "every benchmark in every mode ran");
        for (RunResult result : results) {
            assertTrue(result.getPrimaryResult().getSampleCount() > 0, "no sample from " + result.getParams().getBenchmark());
        }
    }

}
