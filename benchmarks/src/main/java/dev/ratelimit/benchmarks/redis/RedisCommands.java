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
 * Redis commands per acquire, as {@link RedisHotKey} runs them: {@value RedisHotKey#THREADS} threads
 * on the hot key, {@code acquires} acquires each, the commands the clients sent counted by Redis's
 * {@code MONITOR} (commands that a script runs inside Redis are not counted: they are no round trip).
 * A compare-and-swap client needs more commands the more its writers collide; one script per
 * acquire needs one whatever the contention. Secondary result {@code ·commandsPerAcquire}; the score is
 * the time the acquires took.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 1)
@Fork(1)
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
    }

    @Benchmark
    public void ratelimit_redisStore(RedisHotKey.Ours ours, Counted out) throws Exception {
        out.commandsPerAcquire = commandsPerAcquire(ours.redis, ours::acquire);
    }

    @Benchmark
    public void bucket4j_lettuceCas(RedisHotKey.Bucket4j bucket4j, Counted out) throws Exception {
        out.commandsPerAcquire = commandsPerAcquire(bucket4j.redis, bucket4j::acquire);
    }

    private double commandsPerAcquire(RedisProcess redis, Callable<?> acquire) throws Exception {
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
            long commands = monitor.countUntilMarker();
            return (double) commands / ((long) acquires * RedisHotKey.THREADS);
        } finally {
            threads.shutdownNow();
        }
    }
}
