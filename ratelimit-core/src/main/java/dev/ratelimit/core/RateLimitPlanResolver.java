package dev.ratelimit.core;

/**
 * Chooses the plan of a caller: which of the plans of {@code ratelimit.plans} sets the values of its
 * limits. The default puts an authenticated caller in the first plan, in the order of
 * {@code ratelimit.plans}, whose role ({@code ratelimit.plans.<plan>.role}, default the plan's name) it
 * has ({@link RateLimitCaller#isUserInRole}); anonymous callers are in no plan.
 *
 * <p>Replace it with a CDI bean implementing this interface that is an enabled {@code @Alternative}, to
 * choose plans your own way (a token claim, a database). It is called at most once per request, and its
 * answer holds for the bean limits of that request too; it must not block. Never called when no plan is
 * configured.
 */
@FunctionalInterface
public interface RateLimitPlanResolver {

    /**
     * @return one of the names in {@code ratelimit.plans}, or null for no plan. An unknown name counts as
     * no plan (and is logged, at most once a minute); so does an exception.
     */
    String plan(RateLimitCaller caller);
}
