package dev.ratelimit.core.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for something real (an announcement between instances, a member leaving a grid): polling a condition, with
 * a deadline, for the tests of every store.
 */
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
