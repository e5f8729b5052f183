package dev.ratelimit.redis.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** Waiting for something real (a message over pub/sub, a server applying a file): polling a condition, with a deadline. */
public final class Await {

    private Await() {
    }

    /**
     * Returns once {@code condition} holds, polled every 20 ms; fails after {@code seconds} naming {@code what}.
     * A condition that throws fails at once.
     */
    public static void until(String what, long seconds, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
