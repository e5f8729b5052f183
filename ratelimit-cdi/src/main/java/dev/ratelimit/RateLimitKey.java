package dev.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter whose value the method's {@code @RateLimit(per = RateLimitPer.ARGUMENT)} limits count by: an
 * account, a phone number, an e-mail address. Each value has a count of its own:
 *
 * <pre>{@code
 * @POST
 * @RateLimit(name = "login-account", permitLimit = 10, windowSeconds = 3600, per = RateLimitPer.ARGUMENT,
 *            failuresOnly = true)
 * public Response login(@FormParam("username") @RateLimitKey String username,
 *                       @FormParam("password") String password) { ... }
 * }</pre>
 *
 * <p>The value's text is Unicode NFKC-normalised, stripped of leading and trailing white space and lower-cased
 * ({@code Locale.ROOT}), so {@code " Alice"}, {@code "alice"} and {@code "ALICE"} share one count; {@code null} counts
 * as the empty value. It is never kept in clear: the count's partition is {@code arg:} and a digest of it
 * (HMAC-SHA-256 keyed by {@code ratelimit.key-secret}), in store keys, logs, metrics and the admin API alike.
 *
 * <p>One parameter of a method at most, of type {@code String} or {@code CharSequence}, a primitive or its box, an
 * enum or {@code UUID} (another object's {@code toString} may differ per call, or hold a secret), on a method that a
 * {@code per = ARGUMENT} limit covers: anything else fails the deployment, naming the method. The limit is decided by
 * the CDI interceptor when the method is invoked, so a resource class must be a CDI bean.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
@Documented
public @interface RateLimitKey {

    /**
     * True to count the value exactly as it is sent: neither normalised, stripped nor lower-cased (a case-sensitive
     * token). Default false.
     */
    boolean exact() default false;
}
