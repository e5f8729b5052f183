package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitRequest;

/**
 * A limit that the programmatic API spends from by name: for each plan, a request of that one limit
 * (cost 1, the caller's permits passed as the multiple) to acquire, and one to charge. Made once per name
 * by {@link RateLimitEngine#named}. Immutable.
 */
public final class NamedLimit {

    private final String name;
    private final RateLimitRequest[] acquireByPlan;
    private final RateLimitRequest[] chargeByPlan;
    private final BoundKey[][] keysByPlan;

    NamedLimit(String name, RateLimitRequest[] acquireByPlan, RateLimitRequest[] chargeByPlan, BoundKey[][] keysByPlan) {
        this.name = name;
        this.acquireByPlan = acquireByPlan;
        this.chargeByPlan = chargeByPlan;
        this.keysByPlan = keysByPlan;
    }

    /** The limit name. */
    public String name() {
        return name;
    }

    /** The request for a plan; null when the limit is off for it. */
    RateLimitRequest request(int plan, boolean charge) {
        return charge ? chargeByPlan[plan] : acquireByPlan[plan];
    }

    BoundKey[] keys(int plan) {
        return keysByPlan[plan];
    }

    @Override
    public String toString() {
        return "NamedLimit[" + name + "]";
    }
}
