package dev.ratelimit.core.binding;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.List;

/** What the binder makes, made directly for the tests of the request path (its constructors are the binder's). */
public final class BoundForTests {

    private BoundForTests() {
    }

    /** A (name, plan) bound with no store handle and no metrics. */
    public static BoundKey key(CountKey key, RateLimitMode mode) {
        return new BoundKey(key, null, mode, "test", new ShadowLog(key.name(), System::nanoTime), RateLimitMetrics.NONE);
    }

    /** A call site with no limit, to be claimed by a request. */
    public static BoundLimits callSite(String where) {
        return new BoundLimits(BoundLimits.Shape.beanMethod(where, null), List.of(), -1, "(none)", true);
    }

    /** One part of a call site, alone, counted per caller. */
    public static LiveLimits.Part part(RateLimitRequest request, BoundKey[] keys, FailureStatuses failuresOnly,
                                       boolean byStatus) {
        return new LiveLimits.Part(request, keys, RateLimitPer.CALLER, failuresOnly, byStatus, null);
    }
}
