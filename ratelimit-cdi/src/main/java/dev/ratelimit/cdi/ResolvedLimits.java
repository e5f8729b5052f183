package dev.ratelimit.cdi;

import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.engine.DeclaredLimit;
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

    /** The limits of one scope, as the engine binds them, in order. */
    public List<DeclaredLimit> declared(RateLimitScope scope) {
        List<DeclaredLimit> declared = new ArrayList<>(limits.size());
        for (ResolvedLimit limit : limits) {
            if (limit.scope() == scope) {
                declared.add(limit.declared());
            }
        }
        return declared;
    }

    /** All limits, as the engine binds them, in order, whatever their scope. */
    public List<DeclaredLimit> declared() {
        List<DeclaredLimit> declared = new ArrayList<>(limits.size());
        for (ResolvedLimit limit : limits) {
            declared.add(limit.declared());
        }
        return declared;
    }
}
