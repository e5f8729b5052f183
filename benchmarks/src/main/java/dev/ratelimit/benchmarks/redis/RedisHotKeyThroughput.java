package dev.ratelimit.benchmarks.redis;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/** {@link RedisHotKey}: acquires per second, all client threads together. */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RedisHotKeyThroughput extends RedisHotKey {
}
