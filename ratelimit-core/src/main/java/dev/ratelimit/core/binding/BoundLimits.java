package dev.ratelimit.core.binding;

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

    /** How often a call site is decided in one request. */
    enum Calls {
        /** On every call: a bean method called twice in a request spends twice. */
        EVERY_CALL,
        /** At most once per request, however often a container runs the filter that decides it: a resource method. */
        ONCE_PER_REQUEST
    }

    /** What tells that a call succeeded, for a limit that counts only failures (a success gives its permits back). */
    enum Success {
        /** The method's outcome: a return without an exception (a bean method). */
        BY_OUTCOME,
        /** The response's status (a resource method's limits, the programmatic API's). */
        BY_STATUS
    }

    /** Whether the runtime tells client addresses: where it cannot, a resource method's {@code per = ADDRESS} limit fails. */
    enum Addresses {
        KNOWN,
        UNKNOWN
    }

    /**
     * What a call site is, the same in every configuration. Made by the factories, which name each kind of call site.
     *
     * @param where     the call site, as messages name it: {@code TodoResource.all()}
     * @param use       how it spends
     * @param scope     a resource method's scope, which the global limit of each configuration joins; else null
     * @param calls     how often it is decided in one request
     * @param decides   which of its limits it decides
     * @param key       the method's {@code @RateLimitKey} parameter, or null
     * @param success   what tells that a call succeeded
     * @param addresses whether the runtime tells client addresses
     */
    record Shape(String where, Use use, RateLimitScope scope, Calls calls, Decides decides, KeyParameter key,
                 Success success, Addresses addresses) {

        /** A bean method (or a client interface method): every limit, on every call, its outcome telling a success. */
        static Shape beanMethod(String where, KeyParameter key) {
            return new Shape(where, Use.CALL_SITE, null, Calls.EVERY_CALL, Decides.ALL, key, Success.BY_OUTCOME,
                    Addresses.KNOWN);
        }

        /** A resource method's limits in one scope, but those counted per argument: decided by its scope's filter. */
        static Shape resourceMethod(String where, RateLimitScope scope, KeyParameter key, Addresses addresses) {
            return new Shape(where, Use.CALL_SITE, scope, Calls.ONCE_PER_REQUEST, Decides.NOT_PER_ARGUMENT, key,
                    Success.BY_STATUS, addresses);
        }

        /** A resource method's limits counted per argument: decided by the interceptor, when the method is invoked. */
        static Shape resourceMethodAtInvocation(String where, KeyParameter key) {
            return new Shape(where, Use.CALL_SITE, null, Calls.ONCE_PER_REQUEST, Decides.PER_ARGUMENT, key,
                    Success.BY_STATUS, Addresses.KNOWN);
        }

        /** A limit of the programmatic API, acquired or charged: every limit, the response's status telling a success. */
        static Shape named(String where, Use use, KeyParameter key) {
            return new Shape(where, use, null, Calls.EVERY_CALL, Decides.ALL, key, Success.BY_STATUS, Addresses.KNOWN);
        }

        boolean oncePerRequest() {
            return calls == Calls.ONCE_PER_REQUEST;
        }

        boolean byStatus() {
            return success == Success.BY_STATUS;
        }

        boolean addressesKnown() {
            return addresses == Addresses.KNOWN;
        }
    }

    private final Shape shape;
    /** {@link Shape#oncePerRequest}, read on every call. */
    private final boolean oncePerRequest;
    private final List<LimitDeclaration> declared;
    private final int index;
    private final String description;
    private final boolean empty;

    BoundLimits(Shape shape, List<LimitDeclaration> declared, int index, String description, boolean empty) {
        this.shape = shape;
        this.oncePerRequest = shape.oncePerRequest();
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
     * {@code RateLimitEngine.decide(ledger, limits, permits, key)}.
     */
    public int keyPosition() {
        return shape.key() == null ? -1 : shape.key().position();
    }

    Shape shape() {
        return shape;
    }

    /** True when the key counts as sent ({@code @RateLimitKey(exact = true)}), not normalised. */
    public boolean exactKey() {
        return shape.key() != null && shape.key().exact();
    }

    /** True for a resource method's limits: decided at most once per request. */
    public boolean oncePerRequest() {
        return oncePerRequest;
    }

    /** The limits as declared (for a resource method, the global limit of the configuration read at start-up too). */
    List<LimitDeclaration> declared() {
        return declared;
    }

    /** Its index among the call sites: {@link LiveLimits#sites}. */
    public int index() {
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
