package dev.ratelimit.benchmarks.waiting;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.engine.WaitingCalls;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Callers that wait for a partner's limit (docs/calls-to-other-services.md), measured for real time: {@code threads}
 * threads call a limit of {@code rate} permits a second that waits up to a minute, as a blocking bean method does (the
 * engine's decision, then {@link WaitingCalls#sleep}), for a warm-up and then {@code seconds} measured seconds. Reports the
 * rate of calls that went ahead in the measured seconds (against the limit's promise), the CPU time the calling threads
 * used per call (a waiter parks: it should use none while it waits), and how late a waiter woke against its granted
 * instant (p50, p99, max).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.waiting.WaitingCallers [threads] [rate] [seconds] [algorithm...]
 * </pre>
 * Not a JMH benchmark: it measures a rate over seconds, not the cost of an operation. A JMH-free test runs it
 * briefly in {@code mvn verify} so that it does not rot.
 */
public final class WaitingCallers {

    private static final long SECOND = 1_000_000_000L;

    /** What one run measured. */
    public record Result(RateLimitAlgorithm algorithm, int threads, int rate, int seconds, long calls, double perSecond,
                         double expectedPerSecond, long refused, double cpuMicrosPerCall, long lateP50Micros,
                         long lateP99Micros, long lateMaxMicros) {

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s: %d threads, limit %d/s, %d s measured: %d calls, %.1f/s (promise %.1f/s, "
                            + "%+.2f%%), %d refused; CPU %.1f us per call; woke late by p50 %d us, p99 %d us, max %d us",
                    algorithm, threads, rate, seconds, calls, perSecond, expectedPerSecond,
                    100 * (perSecond / expectedPerSecond - 1), refused, cpuMicrosPerCall, lateP50Micros, lateP99Micros,
                    lateMaxMicros);
        }
    }

    private WaitingCallers() {
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        List<RateLimitAlgorithm> algorithms = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            algorithms.add(RateLimitAlgorithm.valueOf(args[i]));
        }
        if (algorithms.isEmpty()) {
            algorithms = List.of(RateLimitAlgorithm.values());
        }
        for (RateLimitAlgorithm algorithm : algorithms) {
            System.out.println(run(algorithm, threads, rate, seconds, 2));
        }
    }

    /**
     * Runs {@code threads} callers of a {@code rate}/s limit of {@code algorithm}: {@code warmup} seconds, then
     * {@code seconds} measured.
     */
    public static Result run(RateLimitAlgorithm algorithm, int threads, int rate, int seconds, int warmup)
            throws InterruptedException {
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of()), new InProcessRateLimitStore())
                .build();
        BoundLimits limits = engine.binder().bind(LimitResolver.resolve(null, MethodDeclarations.beanMethod(
                "Partner.send()", List.of(), List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "Partner.send()")
                        .policy(new RateLimitPolicy("partner", rate, 1, algorithm)).maxWaitMillis(60_000)
                        .per(RateLimitPer.APPLICATION).build()))));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        long measureFrom = start + warmup * SECOND;
        long measureTo = measureFrom + seconds * SECOND;
        long[][] late = new long[threads][];
        long[] calls = new long[threads];
        long[] refused = new long[threads];
        long[] cpuNanos = new long[threads];
        long[] measuredCalls = new long[threads];
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread caller = new Thread(() -> {
                long[] lateness = new long[1024];
                int n = 0;
                long cpuAtStart = 0;
                boolean measuring = false;
                while (true) {
                    long asked = System.nanoTime();
                    if (!measuring && asked - measureFrom >= 0) {
                        measuring = true;
                        cpuAtStart = cpu.getCurrentThreadCpuTime();
                    }
                    if (asked - measureTo >= 0) {
                        break;
                    }
                    RequestLedger ledger = engine.ledger("caller-" + index);
                    RateLimitDecision decision = DecisionStages.join(engine.decide(ledger, limits, 1));
                    if (!decision.allowed()) {
                        refused[index]++;
                        continue;
                    }
                    WaitingCalls.sleep(decision, () -> { });
                    long woke = System.nanoTime();
                    if (woke - measureFrom >= 0 && woke - measureTo < 0) {
                        measuredCalls[index]++;
                        if (n == lateness.length) {
                            lateness = Arrays.copyOf(lateness, n * 2);
                        }
                        lateness[n++] = woke - (asked + decision.waitNanos());
                    }
                    calls[index]++;
                }
                cpuNanos[index] = cpu.getCurrentThreadCpuTime() - cpuAtStart;
                late[index] = Arrays.copyOf(lateness, n);
                done.countDown();
            }, "waiting-caller-" + t);
            caller.setDaemon(true);
            caller.start();
        }
        done.await();
        long measured = Arrays.stream(measuredCalls).sum();
        long[] all = Arrays.stream(late).flatMapToLong(Arrays::stream).sorted().toArray();
        double expected = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? rate * 8.0 / 9.0 : rate;
        return new Result(algorithm, threads, rate, seconds, measured, measured / (double) seconds, expected,
                Arrays.stream(refused).sum(), Arrays.stream(cpuNanos).sum() / 1e3 / Math.max(1, measured),
                percentile(all, 0.50) / 1_000, percentile(all, 0.99) / 1_000, all.length == 0 ? 0 : all[all.length - 1] / 1_000);
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))];
    }
}
