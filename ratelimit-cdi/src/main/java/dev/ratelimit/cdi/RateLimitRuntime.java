package dev.ratelimit.cdi;

import dev.ratelimit.core.config.AdminSettings;
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

    /** The validated settings the application started with (those in force: {@code engine().liveSettings()}). */
    RateLimitSettings settings();

    /** {@code ratelimit.admin.*}: whether, where and for whom the admin HTTP resource is served. */
    AdminSettings adminSettings();

    /** Where the interceptor and the programmatic API find the request's ledger; the filters publish it there. */
    RequestLedgers ledgers();

    /**
     * The Jakarta REST application has deployed (every resource method bound): configuration keys that name
     * nothing are warned about now, once. Idempotent.
     */
    void deploymentComplete();
}
