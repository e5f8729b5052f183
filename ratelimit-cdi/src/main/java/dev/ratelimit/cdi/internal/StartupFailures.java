package dev.ratelimit.cdi.internal;

import dev.ratelimit.core.InvalidRateLimitException;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * A setting or a declaration that fails the deployment is logged by the library itself, one ERROR line with its message
 * (which names the key or the method, and the value), before the exception leaves the library: what a runtime does with
 * it varies, and Payara Micro logs only the container's wrapper of it ({@code WELD-000049: Unable to invoke ...
 * init()}), naming neither. The beans that read the settings first as the application starts log it (the start-up
 * observer, the runtime, the default partitioner; the configuration bean itself is in the package above, which must
 * not depend on this one). Each failure is logged once, however many of them it passes through on its way out.
 *
 * <p>Thread-safety: the set of failures logged is synchronized; it holds them weakly (by identity: exceptions do not
 * override {@code equals}), so that a failed deployment's exceptions are not kept.
 */
public final class StartupFailures {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");
    private static final Set<Throwable> LOGGED = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private StartupFailures() {
    }

    /**
     * Logs the {@link InvalidRateLimitException} that {@code failure} is, or is caused by, unless it was logged before.
     *
     * @return {@code failure}, to be thrown
     */
    public static RuntimeException logged(RuntimeException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidRateLimitException invalid) {
                if (LOGGED.add(invalid)) {
                    LOG.log(Level.ERROR, invalid.getMessage());
                }
                break;
            }
        }
        return failure;
    }
}
