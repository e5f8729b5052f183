package dev.ratelimit.benchmarks.redis;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/** {@link RedisHotKey}: the latency of an acquire, every acquire timed (p50, p99, ... in the results). */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RedisHotKeyLatency extends RedisHotKey {
}
