package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitRequest;

/**
 * The limits of one call site (a resource method in one scope, or a CDI bean method) as deployed: for
 * each plan (index 0: callers in no plan) the request the store is asked, built once, with the modes,
 * overrides and plans of the configuration applied and the limits that are off left out. Per call, the
 * only choice left is the caller's plan. Made by {@link LimitBinder#bind}. Immutable.
 */
public final class BoundLimits {

    private final String where;
    private final RateLimitRequest[] byPlan;
    private final BoundKey[][] keysByPlan;
    private final String description;
    private final boolean empty;
    private final boolean oncePerRequest;

    BoundLimits(String where, RateLimitRequest[] byPlan, BoundKey[][] keysByPlan, String description,
                boolean oncePerRequest) {
        this.where = where;
        this.oncePerRequest = oncePerRequest;
        this.byPlan = byPlan;
        this.keysByPlan = keysByPlan;
        this.description = description;
        boolean none = true;
        for (RateLimitRequest request : byPlan) {
            none &= request == null;
        }
        this.empty = none;
    }

    /** The call site, as messages name it: {@code TodoResource.all()}. */
    public String where() {
        return where;
    }

    /** True when no limit applies to any caller (none declared, or all off): the call site needs nothing. */
    public boolean isEmpty() {
        return empty;
    }

    /** The effective limits, modes and plans, for the start-up line: {@code "default" 3/60s (gold: 10/60s)}. */
    public String describe() {
        return description;
    }

    /** True for a resource method's limits: decided at most once per request. */
    boolean oncePerRequest() {
        return oncePerRequest;
    }

    RateLimitRequest request(int plan) {
        return byPlan[plan];
    }

    BoundKey[] keys(int plan) {
        return keysByPlan[plan];
    }

    /**
     * True when plans exist: then every count is kept per plan (SPEC 13: a caller moved to another plan starts
     * afresh), so the caller's plan must be known before deciding, even for limits that no plan changes.
     */
    boolean countsPerPlan() {
        return byPlan.length > 1;
    }

    @Override
    public String toString() {
        return where + " " + description;
    }
}
