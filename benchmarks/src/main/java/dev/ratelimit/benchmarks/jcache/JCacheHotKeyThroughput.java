package dev.ratelimit.benchmarks.jcache;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/** {@link JCacheHotKey}: decisions per second, all caller threads together. */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class JCacheHotKeyThroughput extends JCacheHotKey {
}
