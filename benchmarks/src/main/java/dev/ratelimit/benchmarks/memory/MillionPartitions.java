package dev.ratelimit.benchmarks.memory;

import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jol.info.GraphLayout;

/**
 * A flood of new keys: one million distinct partitions ({@code partitions}), each spending a permit within one window, in
 * a store with {@code max-tracked-partitions} {@value #MAX_TRACKED}. The store keeps at most that many
 * counts (the rest are let through uncounted), so what it retains stays bounded whatever the
 * number of keys. Secondary results: {@code ·storeRetainedBytes} (JOL, the store's whole object graph),
 * {@code ·heapGrowthBytes} (used heap after a full GC, after minus before), {@code ·trackedCounts}.
 * The score is the time the million acquisitions took.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Djol.magicFieldOffset=true"})
@Threads(1)
@State(Scope.Benchmark)
public class MillionPartitions {

    static final int MAX_TRACKED = 10_000;

    /** Distinct partitions; the smoke run uses fewer. */
    @Param("1000000")
    public int partitions;

    /** The measured figures, reported beside the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Retained {
        public long storeRetainedBytes;
        public long heapGrowthBytes;
        public long trackedCounts;
    }

    @Benchmark
    public InProcessRateLimitStore ratelimit_inProcessStore(Retained out) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedAfterGc(memory);
        InProcessRateLimitStore store = new InProcessRateLimitStore(MAX_TRACKED, System::nanoTime);
        Footprint.fill(store, Footprint.SLIDING, partitions);
        long after = usedAfterGc(memory);
        out.heapGrowthBytes = after - before;
        out.storeRetainedBytes = GraphLayout.parseInstance(store).totalSize();
        out.trackedCounts = Ours.countsKept(store);
        return store;
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
