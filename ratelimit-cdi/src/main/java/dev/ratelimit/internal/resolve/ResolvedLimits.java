package dev.ratelimit.internal.resolve;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import java.util.ArrayList;
import java.util.List;

/**
 * Every limit covering one method, ordered (global, module, class, method; declaration order within a
 * level), validated, resolved once at deployment.
 *
 * @param where  the method, as messages name it: {@code TodoResource.list()}
 * @param limits all limits in order
 */
public record ResolvedLimits(String where, List<ResolvedLimit> limits) {

    public ResolvedLimits {
        limits = List.copyOf(limits);
    }

    public boolean isEmpty() {
        return limits.isEmpty();
    }

    /** The policies of one scope, in order. */
    public List<RateLimitPolicy> policies(RateLimitScope scope) {
        List<RateLimitPolicy> policies = new ArrayList<>(limits.size());
        for (ResolvedLimit limit : limits) {
            if (limit.policy().scope() == scope) {
                policies.add(limit.policy());
            }
        }
        return List.copyOf(policies);
    }

    /** All policies, in order, whatever their scope. */
    public List<RateLimitPolicy> policies() {
        List<RateLimitPolicy> policies = new ArrayList<>(limits.size());
        for (ResolvedLimit limit : limits) {
            policies.add(limit.policy());
        }
        return List.copyOf(policies);
    }

    /** True when a limit was declared on the method, class or module (not only global). */
    public boolean hasDeclaredLimits() {
        for (ResolvedLimit limit : limits) {
            if (limit.level() != Level.GLOBAL) {
                return true;
            }
        }
        return false;
    }
}
