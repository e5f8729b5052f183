package dev.ratelimit.redis.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One warning when Redis stops answering, one line when it answers again, nothing per request.
 *
 * <p>Concurrency: {@code down} is flipped by CAS, so each transition is logged by exactly one thread;
 * {@code failures} counts the requests decided without Redis since the last transition to down (a
 * failure racing with the recovery may be counted in the next outage instead).
 */
public final class OutageLog {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.redis");

    private final String redis;
    private final String consequence;
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong failures = new AtomicLong();

    /**
     * @param redis       names the server, e.g. {@code "Redis at redis://host:6379"}
     * @param consequence what requests get meanwhile, e.g. {@code "requests fail with 500"}
     */
    public OutageLog(String redis, String consequence) {
        this.redis = redis;
        this.consequence = consequence;
    }

    /** A request (or a give-back) that Redis did not serve. */
    public void failed(Throwable cause) {
        failures.incrementAndGet();
        if (!down.get() && down.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "ratelimit: " + redis + " does not answer (" + describe(cause) + "); until it does, "
                    + consequence + ". Lettuce reconnects by itself; this is logged once per outage");
        }
    }

    /** Redis answered. */
    public void answered() {
        if (down.get() && down.compareAndSet(true, false)) {
            LOG.log(Level.INFO, "ratelimit: " + redis + " answers again; " + failures.getAndSet(0)
                    + " calls went without it during the outage");
        }
    }

    /** Whether the last call failed. */
    public boolean down() {
        return down.get();
    }

    static String describe(Throwable cause) {
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
