package dev.ratelimit.cdi;

import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;

/**
 * What the integrations share, made once when the application starts: the {@link RateLimitEngine} (on the
 * store, partitioner, plan resolver and metrics beans in use), the settings, and where a request's ledger is
 * found. A bean; look it up once per deployment, never per request, and keep what it hands out (plain objects,
 * called without a client proxy).
 */
public interface RateLimitRuntime {

    /** The one request path, and its binder. */
    RateLimitEngine engine();

    /** The validated settings. */
    RateLimitSettings settings();

    /** Where the interceptor and the programmatic API find the request's ledger; the filters publish it there. */
    RequestLedgers ledgers();

    /**
     * The Jakarta REST application has deployed (every resource method bound): configuration keys that name
     * nothing are warned about now, once. Idempotent.
     */
    void deploymentComplete();
}
