package dev.ratelimit.core.binding;

import dev.ratelimit.core.log.RateLimitedLog;
import java.lang.System.Logger.Level;
import java.util.function.LongSupplier;

/**
 * The log of one limit in shadow mode: at most one line a minute, naming the limit and how many requests
 * it would have refused since its last line. Thread-safe.
 */
final class ShadowLog {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private final String name;
    private final RateLimitedLog log;

    ShadowLog(String name, LongSupplier clock) {
        this.name = name;
        this.log = new RateLimitedLog(LOG, Level.INFO, RateLimitedLog.MINUTE_NANOS, clock);
    }

    /** A request the limit would have refused. */
    void wouldHaveRefused() {
        log.occurred(count -> "ratelimit: the limit \"" + name + "\" (shadow mode) would have refused " + count
                + (count == 1 ? " request" : " requests") + " since its last such line; they went on", null);
    }
}
