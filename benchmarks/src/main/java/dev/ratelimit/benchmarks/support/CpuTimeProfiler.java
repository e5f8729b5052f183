package dev.ratelimit.benchmarks.support;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * {@code -prof dev.ratelimit.benchmarks.support.CpuTimeProfiler}: the CPU time the benchmark's process
 * used per operation ({@code ·cpu.time.norm}, ns/op), next to JMH's wall-clock score.
 *
 * <p>Why: the machines these benchmarks run on are shared (2 cores, other builds running). A thread
 * that waits for a core is charged by the wall clock but not by the CPU clock, so the CPU time per
 * operation moves far less with the load than the score does. It counts everything the process does
 * for the operations, garbage collection and a spinning waiter included, and the little the JIT and
 * JMH's own threads do after warm-up.
 *
 * <p>Derived from JMH's score for the same iteration: in throughput mode {@code cpu / ops}, in
 * average-time mode {@code (cpu / wall) * score / threads}. Other modes get no result.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long cpuAtStart;
    private long wallAtStart;

    @Override
    public String getDescription() {
        return "process CPU time per operation (robust to a loaded machine)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        wallAtStart = System.nanoTime();
        cpuAtStart = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
                                                       IterationResult result) {
        long cpu = os.getProcessCpuTime() - cpuAtStart;
        long wall = System.nanoTime() - wallAtStart;
        if (cpu <= 0 || wall <= 0 || result.getRawPrimaryResults().isEmpty()) {
            return List.of(); // nothing measured in this iteration (a short smoke iteration may end before an op)
        }
        double nanosPerUnit = benchmark.getTimeUnit().toNanos(1);
        double score = result.getPrimaryResult().getScore();
        double cpuPerOp;
        switch (benchmark.getMode()) {
            case Throughput:
                // score: operations of all threads per time unit
                cpuPerOp = (double) cpu / wall / (score / nanosPerUnit);
                break;
            case AverageTime:
                // score: time per operation, as each thread saw it
                cpuPerOp = (double) cpu / wall * score * nanosPerUnit / benchmark.getThreads();
                break;
            default:
                return List.of();
        }
        return List.of(new ScalarResult("cpu.time.norm", cpuPerOp, "ns/op", AggregationPolicy.AVG));
    }
}
