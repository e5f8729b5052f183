package dev.ratelimit;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import java.util.concurrent.CompletionStage;

/**
 * Limits from code: spends permits of a named limit where the cost of a call is known only in code (a
 * bulk import of n items) or only after the work (the tokens an LLM call used). Inject it:
 * {@code @Inject RateLimiter limiter;}.
 *
 * <p>A name is a limit declared by an {@code @RateLimit(name = ...)} anywhere in the application (the first
 * declaration sizes it), or by configuration alone: {@code ratelimit.limits.<name>.permit-limit} and
 * {@code ratelimit.limits.<name>.window-seconds} (which win over an annotation). Configuration overrides,
 * modes and plans apply as to any limit. An unknown name throws {@link IllegalArgumentException}.
 *
 * <p>Within a Jakarta REST request the call spends for the request's caller (its partition and plan) and
 * joins the request: its limits appear in the response's headers, and if the request ends in a rate-limit
 * 429 its permits are given back (a request is charged by all of its limits or by none). Outside a request
 * the caller is the CDI {@code Principal}; or pass a partition explicitly.
 *
 * <p>It never waits: {@link #acquire} refuses at once even for a limit whose declarations wait for their permits
 * ({@code maxWaitMillis}, SPEC 20); a limit declared {@code per = APPLICATION} spends from its one count here too.
 */
public interface RateLimiter {

    /**
     * Spends {@code permits} permits of the limit {@code name} for the current caller, or none.
     *
     * @param name    the limit
     * @param permits how many, 1 .. the limit's permit limit (for the caller's plan)
     * @return the decision (allowed); null when the limit is off for the caller (mode {@code off}, or
     *         {@code ratelimit.enabled=false})
     * @throws RateLimitExceededException when the limit has fewer permits left; nothing was spent (out of a
     *         resource method it becomes the same 429, with headers, as an {@code @RateLimit})
     * @throws IllegalArgumentException when {@code name} names no limit, {@code permits < 1}, or
     *         {@code permits} exceeds the limit (it could never succeed)
     * @throws dev.ratelimit.core.RateLimitStoreException when the store could not decide and
     *         {@code ratelimit.store.on-failure} is {@code fail}
     */
    RateLimitDecision acquire(String name, int permits);

    /** {@link #acquire(String, int)} for an explicit partition (no caller, no plan): work outside any request. */
    RateLimitDecision acquire(String name, int permits, String partition);

    /**
     * {@link #acquire(String, int)} without waiting for a remote store: the stage completes with the
     * decision (null when the limit is off), or fails with {@link RateLimitExceededException} (nothing spent).
     */
    CompletionStage<RateLimitDecision> acquireAsync(String name, int permits);

    /**
     * Charges {@code permits} permits of the limit {@code name} for the current caller after the fact: they
     * are spent even past the limit (the count goes into debt and refuses until enough permits have
     * returned; headers show {@code r=0} meanwhile). Never throws for the limit; a charge is not given back
     * when the request ends in a 429 (the work was done).
     *
     * @param permits how many, {@code >= 1}
     * @return the decision; null when the limit is off for the caller
     * @throws IllegalArgumentException when {@code name} names no limit or {@code permits < 1}
     */
    RateLimitDecision charge(String name, int permits);

    /** {@link #charge(String, int)} for an explicit partition. */
    RateLimitDecision charge(String name, int permits, String partition);
}
