package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import java.util.List;

/**
 * The limits of one call site (a resource method in one scope, a CDI bean method, a limit of the programmatic
 * API) as deployed: what was declared, and its index among the call sites. What the store is asked for each plan
 * (the configuration's overrides, modes and plans applied, the limits that are off left out) is built by the
 * binder in each configuration ({@link LiveLimits}: live values); per call, the only choices left are the
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

    /**
     * Which of its limits a call site decides, by whose count they spend from in the configuration in force: a
     * resource method's {@code per = ARGUMENT} limits are decided by the CDI interceptor, when the method is invoked
     * (its arguments exist then), and its other limits by the Jakarta REST filters.
     */
    enum Decides {
        /** Every limit: a bean method, the programmatic API. */
        ALL,
        /** Those not counted per argument: a resource method's, in the filter of their scope. */
        NOT_PER_ARGUMENT,
        /** Those counted per argument: a resource method's, in the interceptor. */
        PER_ARGUMENT
    }

    /**
     * What a call site is, the same in every configuration.
     *
     * @param where          the call site, as messages name it: {@code TodoResource.all()}
     * @param use            how it spends
     * @param scope          a resource method's scope, which the global limit of each configuration joins; else null
     * @param oncePerRequest true for a resource method's limits: decided at most once per request
     * @param decides        which of its limits it decides
     * @param key            the method's {@code @RateLimitKey} parameter, or null
     * @param byStatus       true when the response's status tells whether a call succeeded (a resource method's
     *                       limits, the programmatic API's); else the method's outcome does (a bean method)
     * @param addressesKnown false where the runtime cannot tell client addresses: a resource method's
     *                       {@code per = ADDRESS} limit then fails
     */
    record Shape(String where, Use use, RateLimitScope scope, boolean oncePerRequest, Decides decides, KeyParameter key,
                 boolean byStatus, boolean addressesKnown) {
    }

    private final Shape shape;
    private final List<LimitDeclaration> declared;
    private final int index;
    private final String description;
    private final boolean empty;

    BoundLimits(Shape shape, List<LimitDeclaration> declared, int index, String description, boolean empty) {
        this.shape = shape;
        this.declared = List.copyOf(declared);
        this.index = index;
        this.description = description;
        this.empty = empty;
    }

    /** The call site, as messages name it: {@code TodoResource.all()}. */
    public String where() {
        return shape.where();
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

    /**
     * The index of the method's parameter whose value a {@code per = ARGUMENT} limit counts by
     * ({@code @RateLimitKey}), found at deployment; -1 when it has none. The interceptor passes that argument to
     * {@link RateLimitEngine#decide(RequestLedger, BoundLimits, int, Object)}.
     */
    public int keyPosition() {
        return shape.key() == null ? -1 : shape.key().position();
    }

    Shape shape() {
        return shape;
    }

    /** True when the key counts as sent ({@code @RateLimitKey(exact = true)}), not normalised. */
    boolean exactKey() {
        return shape.key() != null && shape.key().exact();
    }

    /** True for a resource method's limits: decided at most once per request. */
    boolean oncePerRequest() {
        return shape.oncePerRequest();
    }

    /** The limits as declared (for a resource method, the global limit of the configuration read at start-up too). */
    List<LimitDeclaration> declared() {
        return declared;
    }

    int index() {
        return index;
    }

    Use use() {
        return shape.use();
    }

    /**
     * For a resource method's limits, their scope: the global limit of each configuration joins them when its scope
     * is this one (it may be set, changed or removed while the application runs). Null for other call sites.
     */
    RateLimitScope scope() {
        return shape.scope();
    }

    @Override
    public String toString() {
        return where() + " " + description;
    }
}
