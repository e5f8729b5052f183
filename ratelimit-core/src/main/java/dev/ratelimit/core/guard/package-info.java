/**
 * Around any store: the failure policy ({@link dev.ratelimit.core.guard.GuardedStore}: the timeout, {@code
 * ratelimit.on-failure}, {@link dev.ratelimit.core.guard.PolicyDecisions}), the breaker that makes an outage cost
 * one timeout ({@link dev.ratelimit.core.guard.OutageBreaker}), the one warning per outage ({@link
 * dev.ratelimit.core.guard.OutageLog}), the deadlines of calls a store has not answered ({@link
 * dev.ratelimit.core.guard.StoreDeadlines}), the refusals remembered from a shared store's announcements ({@link
 * dev.ratelimit.core.guard.RefusalMemory}), and the check that instances sharing a store digest keys alike ({@link
 * dev.ratelimit.core.guard.KeySecretFingerprint}).
 *
 * <p>The bottom layer of the engine's packages: it uses none of them. Not an API: its public types are public for the
 * library's other packages and may change with any release.
 */
package dev.ratelimit.core.guard;
