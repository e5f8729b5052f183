package dev.ratelimit;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitScope;
import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits how often the annotated method (or every method of the annotated class, or every resource
 * method of the annotated {@code jakarta.ws.rs.core.Application} subclass) may be called per
 * partition (see {@link dev.ratelimit.core.RateLimitPartitioner}).
 *
 * <pre>{@code
 * @RateLimit(permitLimit = 5, windowSeconds = 1, name = "burst")
 * @RateLimit(permitLimit = 500, windowSeconds = 3600, name = "hourly")
 * public Response create(Todo todo) { ... }
 * }</pre>
 *
 * <p>Limits with the same {@link #name()} spend from one count per partition (and plan). A request
 * allowed by its limits spends {@link #cost()} permits from each; a request refused by any of them
 * spends from none. By default the window slides in steps of one eighth of {@link #windowSeconds()}: a
 * permit spent in a step returns one window after the start of that step ({@link #algorithm()}).
 *
 * <p>Every member can be changed by configuration, by the limit's name, without a rebuild:
 * {@code ratelimit.limits.<name>.permit-limit}, {@code .window-seconds}, {@code .algorithm} and
 * {@code .mode} ({@code enforce}, {@code shadow}, {@code off}), {@code .max-wait-millis}, {@code .per},
 * {@code .failures-only} and {@code .failure-statuses}, and
 * the size and mode per plan of callers
 * ({@code ratelimit.plans.<plan>.limits.<name>.*}).
 *
 * <p>Invalid values fail the deployment with a message naming the method and the value.
 */
@InterceptorBinding
@Repeatable(RateLimit.List.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Documented
public @interface RateLimit {

    /** Permits (requests) allowed per window and partition. Range 1 .. Integer.MAX_VALUE; default 100. */
    @Nonbinding
    int permitLimit() default 100;

    /** The window, in seconds. Range 1 .. 31 536 000 (one year); default 60. */
    @Nonbinding
    int windowSeconds() default 60;

    /**
     * The count this limit spends from, also its name in the {@code RateLimit} and
     * {@code RateLimit-Policy} headers, in metrics and in configuration keys. Not blank, at most 64
     * characters from {@code [A-Za-z0-9._-]}; default {@code "default"}. Unique among the limits that
     * cover one method.
     */
    @Nonbinding
    String name() default "default";

    /** Where in the Jakarta REST filter chain the limit decides; default {@link RateLimitScope#TRANSPORT}. */
    @Nonbinding
    RateLimitScope scope() default RateLimitScope.TRANSPORT;

    /**
     * How spent permits return; default {@link RateLimitAlgorithm#SLIDING_WINDOW}. Limits that share a name
     * must share an algorithm (the deployment fails naming both otherwise).
     */
    @Nonbinding
    RateLimitAlgorithm algorithm() default RateLimitAlgorithm.SLIDING_WINDOW;

    /**
     * Permits one call spends from this limit, 1 .. {@link #permitLimit()}; default 1. Limits that share a
     * name may have different costs (a shared budget where a bulk call costs more than a single one).
     */
    @Nonbinding
    int cost() default 1;

    /**
     * How long a call over the limit may wait for its permits, in milliseconds, {@code >= 0}; default 0: refuse at
     * once. Above 0 the call reserves its permits (first come, first served) and goes ahead at the instant they
     * exist, when that is within this time; otherwise it fails at once and reserves nothing. For calls to other
     * services (a CDI bean method, a MicroProfile Rest Client interface method): a blocking method sleeps, one
     * returning {@code CompletionStage} or a Mutiny {@code Uni}/{@code Multi} is delayed without holding a thread.
     * A Jakarta REST resource method refuses at once: a wait there fails the deployment. Configuration:
     * {@code ratelimit.limits.<name>.max-wait-millis}.
     */
    @Nonbinding
    long maxWaitMillis() default 0;

    /**
     * Whose count the limit spends from: each caller's (default {@link RateLimitPer#CALLER}); one count for the
     * whole application ({@link RateLimitPer#APPLICATION}: a partner's limit is on the application, not on each of
     * its callers; also a cap that protects a back end whatever the number of callers); one per client address
     * ({@link RateLimitPer#ADDRESS}, whatever {@code ratelimit.partition-by} says: an anonymous log-in); or one per
     * value of the method's {@link RateLimitKey} parameter ({@link RateLimitPer#ARGUMENT}: an account, a phone
     * number), decided when the method is invoked and left out of allowed responses' headers. Limits that share a
     * name must agree (the deployment fails naming both otherwise). Configuration:
     * {@code ratelimit.limits.<name>.per} ({@code caller}, {@code application}, {@code address} or
     * {@code argument}).
     */
    @Nonbinding
    RateLimitPer per() default RateLimitPer.CALLER;

    /**
     * True to count only failures: a call takes its permit as usual, and gives it back once it succeeded (a response
     * status below 400 or not among {@link #failureStatuses()}; for a bean method, a return without an exception, or
     * a {@code CompletionStage} or Mutiny {@code Uni} that completes). So the count holds failures (and calls in
     * flight) only: a user who logs in twenty times a day is never refused, a guesser is after {@link #permitLimit()}
     * wrong attempts. Anything else is a failure, an outcome never known included (a dropped connection). Its refusal
     * is answered at once, before the request filters after it. Default false. Cannot wait: with
     * {@link #maxWaitMillis()} above 0 the deployment fails. Configuration: {@code ratelimit.limits.<name>.failures-only}.
     */
    @Nonbinding
    boolean failuresOnly() default false;

    /**
     * For {@link #failuresOnly()}: the HTTP statuses that are failures, codes and ranges from 400 to 599,
     * comma-separated; default {@code "400-599"} (a server error gives no attempt back). {@code "401,403"} counts only
     * refused credentials. Limits that share a name must agree. Configuration:
     * {@code ratelimit.limits.<name>.failure-statuses}.
     */
    @Nonbinding
    String failureStatuses() default FailureStatuses.DEFAULT_TEXT;

    /**
     * Holds repeated {@code @RateLimit}s. It is an interceptor binding of its own because some
     * containers (Quarkus ArC) do not resolve repeatable bindings declared on classes.
     */
    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Documented
    @interface List {
        @Nonbinding
        RateLimit[] value();
    }
}
