package dev.ratelimit.benchmarks.http;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The example's {@code GET /todos/1} over loopback, with its limits (the module limit, 100 per 60 s per
 * {@code X-Api-Key}) and with ratelimit switched off, same server, same resource classes. The
 * subclasses fix what is measured: {@link TodoByIdThroughput} (requests/s of all client threads) and
 * {@link TodoByIdLatency} (a request's latency, sampled: p50, p99).
 *
 * <p>Never refusing: each request carries the next of {@code keys} API keys (the threads start at
 * different offsets), so that no key comes near its 100 permits a minute below about
 * {@code keys}&times;100/60 requests a second (54 000 for the default); warm-up passes over every key,
 * so the measurement sees counts that exist, as with returning clients. Every request is counted (the
 * store may keep {@value TodosServers#MAX_TRACKED_PARTITIONS} counts). Any answer but 200 fails the
 * benchmark. Server and load generator share the JVM and the machine's
 * cores, as they would share a box with wrk; they are the same for both variants.
 */
// Jersey and Weld on two cores take about 15 s of load to reach their steady state
@Warmup(iterations = 10, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(4)
public abstract class TodoById {

    static final String PATH = "/todos/1";

    /** How many API keys are in rotation. */
    @State(Scope.Benchmark)
    public static class Keys {
        /** A power of two; the smoke run uses fewer (its runs are short). */
        @Param("32768")
        public int keys;
    }

    /** The example as it ships, limits on. */
    @State(Scope.Benchmark)
    public static class RateLimitOn {
        AutoCloseable server;
        final int[] port = new int[1];
        final AtomicInteger threads = new AtomicInteger();

        @Setup(Level.Trial)
        public void start() {
            server = TodosServers.withRateLimit(port);
        }

        @TearDown(Level.Trial)
        public void stop() throws Exception {
            server.close();
        }
    }

    /** The same server with ratelimit switched off. */
    @State(Scope.Benchmark)
    public static class RateLimitOff {
        AutoCloseable server;
        final int[] port = new int[1];
        final AtomicInteger threads = new AtomicInteger();

        @Setup(Level.Trial)
        public void start() {
            server = TodosServers.rateLimitOff(port);
        }

        @TearDown(Level.Trial)
        public void stop() throws Exception {
            server.close();
        }
    }

    /** A benchmark thread's connection and its share of the keys. */
    public abstract static class Client {
        HttpConnection connection;
        byte[][] requests;
        int next;

        void open(int port, int keys, int thread, int threads) throws IOException {
            if (Integer.bitCount(keys) != 1) {
                throw new IllegalArgumentException("keys must be a power of two, was " + keys);
            }
            connection = new HttpConnection(port);
            requests = new byte[keys][];
            for (int i = 0; i < keys; i++) {
                requests[i] = HttpConnection.get(PATH, "X-Api-Key: key-" + i);
            }
            next = (int) ((long) keys * thread / threads);
        }

        int get() throws IOException {
            int status = connection.exchange(requests[next++ & (requests.length - 1)]);
            expectOk(status);
            return status;
        }

        private static void expectOk(int status) {
            if (status != 200) {
                throw new IllegalStateException("GET " + PATH + " answered " + status + ", expected 200 (never refusing)");
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            connection.close();
        }
    }

    @State(Scope.Thread)
    public static class RateLimitOnClient extends Client {
        @Setup(Level.Trial)
        public void open(Keys keys, RateLimitOn server, BenchmarkParams params) throws IOException {
            open(server.port[0], keys.keys, server.threads.getAndIncrement(), params.getThreads());
        }
    }

    @State(Scope.Thread)
    public static class RateLimitOffClient extends Client {
        @Setup(Level.Trial)
        public void open(Keys keys, RateLimitOff server, BenchmarkParams params) throws IOException {
            open(server.port[0], keys.keys, server.threads.getAndIncrement(), params.getThreads());
        }
    }

    /** The example with its limits: every request decided, counted and given its RateLimit headers. */
    @Benchmark
    public int ratelimit_on(RateLimitOnClient client) throws IOException {
        return client.get();
    }

    /** The same endpoint, ratelimit switched off. */
    @Benchmark
    public int ratelimit_off(RateLimitOffClient client) throws IOException {
        return client.get();
    }
}
