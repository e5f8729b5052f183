package dev.ratelimit.core.binding;


/**
 * A limit that the programmatic API spends from by name, bound twice: to acquire (all or nothing: refuses
 * when the count lacks the permits) and to charge (spends even past the limit, never refuses). Each spends
 * the limit's one permit per unit, the caller's permits passed to
 * {@link dev.ratelimit.core.engine.RateLimitEngine#decide} as the multiple. Made once per name by {@link LimitBinder#named}. Immutable.
 */
public final class NamedLimit {

    private final String name;
    private final BoundLimits acquire;
    private final BoundLimits charge;

    NamedLimit(String name, BoundLimits acquire, BoundLimits charge) {
        this.name = name;
        this.acquire = acquire;
        this.charge = charge;
    }

    /** The limit name. */
    public String name() {
        return name;
    }

    /** The limit bound to acquire: a refusal spends nothing. */
    public BoundLimits acquire() {
        return acquire;
    }

    /** The limit bound to charge after the fact: spends even past the limit (debt), never refuses. */
    public BoundLimits charge() {
        return charge;
    }

    @Override
    public String toString() {
        return "NamedLimit[" + name + "]";
    }
}
