package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.binding.RolePlanResolver;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;

/**
 * An authenticated caller is in the first plan of {@code ratelimit.plans} whose role it has
 * ({@code ratelimit.plans.<plan>.role}, default the plan's name); an anonymous caller in none. An enabled
 * {@code @Alternative} replaces it.
 */
@Dependent
public class DefaultRateLimitPlanResolver implements RateLimitPlanResolver {

    @Inject
    RateLimitConfiguration configuration;

    private RolePlanResolver resolver;

    @PostConstruct
    void init() {
        resolver = new RolePlanResolver(configuration.settings().plans());
    }

    @Override
    public String plan(RateLimitCaller caller) {
        return resolver.plan(caller);
    }

    @Override
    public String toString() {
        return "the roles of ratelimit.plans";
    }
}
