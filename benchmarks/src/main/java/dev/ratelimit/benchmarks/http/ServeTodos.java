package dev.ratelimit.benchmarks.http;

import java.util.concurrent.CountDownLatch;

/**
 * Both servers of {@link TodoById} in one process, for an outside load generator (wrk): prints
 * {@code on <port>} and {@code off <port>}, then serves until killed.
 * {@code java -cp benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.http.ServeTodos on|off}
 */
public final class ServeTodos {

    private ServeTodos() {
    }

    public static void main(String[] args) throws Exception {
        int[] port = new int[1];
        boolean on = args.length == 0 || "on".equals(args[0]);
        AutoCloseable server = on ? TodosServers.withRateLimit(port) : TodosServers.rateLimitOff(port);
        System.out.println((on ? "on " : "off ") + port[0]);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        new CountDownLatch(1).await();
    }
}
