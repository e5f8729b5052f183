package dev.ratelimit.benchmarks.inprocess;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The floor under every in-process benchmark: reading the clock. Ours reads {@code System.nanoTime}
 * (monotonic: moving the wall clock changes nothing), as does Resilience4j; Bucket4j's local buckets read
 * {@code currentTimeMillis} by default.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class Clocks {

    @Benchmark
    public long jdk_nanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public long jdk_currentTimeMillis() {
        return System.currentTimeMillis();
    }
}
