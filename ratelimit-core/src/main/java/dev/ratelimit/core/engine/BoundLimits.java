package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.LimitDeclaration;
import java.util.List;

/**
 * The limits of one call site (a resource method in one scope, a CDI bean method, a limit of the programmatic
 * API) as deployed: what was declared, and its index among the call sites. What the store is asked for each plan
 * (the configuration's overrides, modes and plans applied, the limits that are off left out) is built by the
 * binder in each configuration ({@link LiveLimits}: live values, SPEC 19); per call, the only choices left are the
 * configuration the request reads once and the caller's plan. Made by {@link LimitBinder}. Immutable.
 */
public final class BoundLimits {

    /** How a call site spends. */
    enum Use {
        /** Every declared limit, at its cost: a resource or bean method. */
        CALL_SITE,
        /** A limit of the programmatic API, acquired (refused when short). */
        ACQUIRE,
        /** A limit of the programmatic API, charged after the fact (never refused). */
        CHARGE
    }

    private final String where;
    private final List<LimitDeclaration> declared;
    private final int index;
    private final Use use;
    private final RateLimitScope scope;
    private final String description;
    private final boolean empty;
    private final boolean oncePerRequest;

    BoundLimits(String where, List<LimitDeclaration> declared, int index, Use use, RateLimitScope scope,
                String description, boolean empty, boolean oncePerRequest) {
        this.where = where;
        this.declared = List.copyOf(declared);
        this.index = index;
        this.use = use;
        this.scope = scope;
        this.description = description;
        this.empty = empty;
        this.oncePerRequest = oncePerRequest;
    }

    /** The call site, as messages name it: {@code TodoResource.all()}. */
    public String where() {
        return where;
    }

    /**
     * True when no limit can apply to any caller, now or after a change of configuration (none declared; all off,
     * or the library disabled, with the configuration read once): the call site needs nothing.
     */
    public boolean isEmpty() {
        return empty;
    }

    /** The effective limits, modes and plans when bound, for the start-up line: {@code "default" 3/60s (gold: 10/60s)}. */
    public String describe() {
        return description;
    }

    /** True for a resource method's limits: decided at most once per request. */
    boolean oncePerRequest() {
        return oncePerRequest;
    }

    /** The limits as declared (for a resource method, the global limit of the configuration read at start-up too). */
    List<LimitDeclaration> declared() {
        return declared;
    }

    int index() {
        return index;
    }

    Use use() {
        return use;
    }

    /**
     * For a resource method's limits, their scope: the global limit of each configuration joins them when its scope
     * is this one (it may be set, changed or removed while the application runs). Null for other call sites.
     */
    RateLimitScope scope() {
        return scope;
    }

    @Override
    public String toString() {
        return where + " " + description;
    }
}
