/**
 * The engine: the one request path ({@link dev.ratelimit.core.engine.RateLimitEngine#decide}), the binder that
 * prepares it at deployment ({@link dev.ratelimit.core.binding.LimitBinder}), the request's ledger, and the failure
 * policy around any store. Not an API: its public types are public for the library's adapters (the CDI
 * interceptor, the Jakarta REST filters, the programmatic API) and may change with any release. Applications use
 * {@code dev.ratelimit} and the values and SPIs of {@code dev.ratelimit.core}.
 */
package dev.ratelimit.core.engine;
import dev.ratelimit.core.binding.LimitBinder;

