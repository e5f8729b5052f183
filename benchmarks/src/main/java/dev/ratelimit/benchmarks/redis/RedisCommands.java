package dev.ratelimit.benchmarks.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

/**
 * Redis commands per call, as {@link RedisHotKey} runs them: {@value RedisHotKey#THREADS} threads
 * on the hot key, {@code acquires} acquires each, the commands the clients sent counted by Redis's
 * {@code MONITOR} (commands that a script runs inside Redis are not counted: they are no round trip).
 * A compare-and-swap client needs more commands the more its writers collide; one script per
 * acquire needs one whatever the contention. Secondary result {@code ·commandsPerAcquire}; the score is
 * the time the acquires took. Ours three ways: one permit of one limit, 20 permits of one limit (a
 * programmatic {@code acquire(name, 20)}), one permit of each of two limits on one request; secondary results
 * {@code ·commandsPerAcquire} (every command a client sent) and {@code ·evalshaPerAcquire} (the
 * {@code EVALSHA}s among them).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class RedisCommands {

    /** Acquires per thread. */
    @Param("2000")
    public int acquires;

    /** The measured figure, reported beside the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counted {
        public double commandsPerAcquire;
        public double evalshaPerAcquire;
    }

    @Benchmark
    public void ratelimit_redisStore(RedisHotKey.Ours ours, Counted out) throws Exception {
        count(out, ours.redis, ours::acquire);
    }

    @Benchmark
    public void ratelimit_redisStore20Permits(RedisHotKey.Ours ours, Counted out) throws Exception {
        count(out, ours.redis, () -> ours.acquire(ours.request, 20));
    }

    @Benchmark
    public void ratelimit_redisStoreTwoLimits(RedisHotKey.Ours ours, Counted out) throws Exception {
        count(out, ours.redis, () -> ours.acquire(ours.twoLimits, 1));
    }

    @Benchmark
    public void bucket4j_lettuceCas(RedisHotKey.Bucket4j bucket4j, Counted out) throws Exception {
        count(out, bucket4j.redis, bucket4j::acquire);
    }

    private void count(Counted out, RedisProcess redis, Callable<?> acquire) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(RedisHotKey.THREADS);
        try (RedisMonitor monitor = new RedisMonitor(redis.uri())) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < RedisHotKey.THREADS; t++) {
                done.add(threads.submit(() -> {
                    for (int i = 0; i < acquires; i++) {
                        acquire.call();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            RedisMonitor.Counted counted = monitor.countUntilMarker();
            double calls = (double) acquires * RedisHotKey.THREADS;
            out.commandsPerAcquire = counted.commands() / calls;
            out.evalshaPerAcquire = counted.evalsha() / calls;
        } finally {
            threads.shutdownNow();
        }
    }
}
