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
 * ({@code maxWaitMillis}); a limit declared {@code per = APPLICATION} spends from its one count here too, one
 * {@code per = ADDRESS} from the count of the request's client address ({@code addr:unknown} outside a request, or
 * the address given to {@link #acquireForAddress}), and one {@code per = ARGUMENT} from the count of the key given to
 * {@link #acquireForKey} (the other methods refuse such a limit: they have no key). A limit that counts only failures
 * ({@code failuresOnly}) gives its permits back when the request's response is a success for it; outside a request,
 * never.
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

    /**
     * {@link #acquire(String, int)} for a limit counted per argument ({@code per = ARGUMENT}): spends from the count
     * of {@code key} (an account, a phone number), normalised as the limit's {@code @RateLimitKey} normalises it and
     * kept only as a digest. The limit's other counts (per caller...) spend for the current caller.
     *
     * @param key the value: text, a primitive's box, an enum or a UUID; null counts as the empty value
     * @throws RateLimitExceededException as {@link #acquire(String, int)}
     * @throws IllegalArgumentException as {@link #acquire(String, int)}
     */
    RateLimitDecision acquireForKey(String name, int permits, Object key);

    /**
     * {@link #acquire(String, int)} for a limit counted per client address ({@code per = ADDRESS}), work outside any
     * request: spends from the count of {@code client} (its network under {@code ratelimit.ipv4-prefix} and
     * {@code ratelimit.ipv6-prefix}); no caller, no plan.
     *
     * @param client the client's address; null counts as {@code addr:unknown}
     * @throws RateLimitExceededException as {@link #acquire(String, int)}
     * @throws IllegalArgumentException as {@link #acquire(String, int)}
     */
    RateLimitDecision acquireForAddress(String name, int permits, java.net.InetAddress client);
}
