/**
 * The CDI integration's contract with the library's other modules: the Jakarta REST adapter, the OpenAPI filter,
 * the Redis store. Not an application API: applications use {@code dev.ratelimit} ({@code @RateLimit},
 * {@code RateLimiter}, {@code RateLimitTesting}) and the values and SPIs of {@code dev.ratelimit.core}. The
 * implementations live in {@code dev.ratelimit.cdi.internal}.
 */
package dev.ratelimit.cdi;
