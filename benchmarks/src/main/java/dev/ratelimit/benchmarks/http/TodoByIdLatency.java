package dev.ratelimit.benchmarks.http;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/** {@link TodoById}: the latency of a request, every request timed (p50, p90, p99, ... in the results). */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TodoByIdLatency extends TodoById {
}
