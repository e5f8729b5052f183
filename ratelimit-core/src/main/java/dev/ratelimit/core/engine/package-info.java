/**
 * The request path: the one place every adapter decides a request's limits ({@link
 * dev.ratelimit.core.engine.RateLimitEngine#decide}), the record of one request's decisions ({@link
 * dev.ratelimit.core.engine.RequestLedger}), where each limit counts ({@link dev.ratelimit.core.engine.Partitions}),
 * what reaches the headers ({@link dev.ratelimit.core.engine.ReportedOutcomes}), and how a blocking call waits for
 * reserved permits ({@link dev.ratelimit.core.engine.WaitingCalls}).
 *
 * <p>The packages of the engine form layers, arrows pointing one way: {@code engine} (this) uses {@code live} (live
 * values, the admin API), which uses {@code binding} (call sites bound at deployment), which uses {@code guard} (the
 * failure policy around any store). None of them uses one above it.
 *
 * <p>Not an API: its public types are public for the library's adapters (the CDI interceptor, the Jakarta REST
 * filters, the programmatic API) and may change with any release. Applications use {@code dev.ratelimit} and the
 * values and SPIs of {@code dev.ratelimit.core}.
 */
package dev.ratelimit.core.engine;
