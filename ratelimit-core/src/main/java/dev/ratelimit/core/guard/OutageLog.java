package dev.ratelimit.core.guard;

import dev.ratelimit.core.log.LogText;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One warning when the store stops answering, one line when it answers again, nothing per request:
 * whichever integration (filter, interceptor, programmatic API) saw it, since they all decide through
 * the one {@link GuardedStore}.
 *
 * <p>Concurrency: {@code down} is flipped by CAS, so each transition is logged by exactly one thread;
 * {@code failures} counts the calls decided without the store since the outage began (a failure racing
 * with the recovery may be counted in the next outage instead).
 *
 * <p>The library's internals, public for its other packages: not an API.
 */
public final class OutageLog {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private final String store;
    private final String consequence;
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong failures = new AtomicLong();

    /**
     * @param store       names the store, e.g. {@code "the store SharedStore(uri=host:6379)"}
     * @param consequence what calls get meanwhile, e.g. {@code "requests fail with 500"}
     */
    OutageLog(String store, String consequence) {
        this.store = store;
        this.consequence = consequence;
    }

    /** A call that the store did not decide; {@code what} names its limits. */
    void failed(String what, Throwable cause) {
        failures.incrementAndGet();
        if (!down.get() && down.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "ratelimit: " + store + " failed to decide " + LogText.of(what) + " (" + describe(cause)
                    + "); until it answers again, " + consequence + ". Logged once per outage");
        }
    }

    /** The store answered. */
    void answered() {
        if (down.get() && down.compareAndSet(true, false)) {
            LOG.log(Level.INFO, "ratelimit: " + store + " answers again; " + failures.getAndSet(0)
                    + " calls went without it during the outage");
        }
    }

    /** Whether the last call failed. */
    boolean down() {
        return down.get();
    }

    public static String describe(Throwable cause) {
        String message = cause.getMessage();
        // a store's message may carry what a client sent (a key, a partition)
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + LogText.of(message));
    }
}
