package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a store is asked to decide for one partition: a list of limits, each with the counts it spends
 * from (a {@link CountKey} and the store's handle on them), the policy that sizes a new count, how many
 * permits one call costs, and what kind of spending it is. The engine builds one per call site and plan
 * when the application deploys; stores receive them as they are. Immutable.
 *
 * <p>A call spends {@code cost(i) * multiple} permits from limit {@code i}, {@code multiple} being the
 * argument of {@link RateLimitStore#acquire} (1 for a request; n for the programmatic API's n permits).
 */
public final class RateLimitRequest {

    /** How a limit spends. */
    public enum Kind {
        /**
         * Spends when every {@code ACQUIRE} limit of the request has the permits, else nothing is spent
         * from any limit of the request (all or nothing): an enforced limit.
         */
        ACQUIRE,
        /**
         * Never refuses the request: when the request is allowed, spends if the count has the permits,
         * and is reported refused (nothing spent from it) if not. A limit in shadow mode.
         */
        SHADOW,
        /**
         * Spends when the request is allowed, even past the limit (the count goes into debt, and refuses
         * until enough permits have returned). Never refuses. A cost known only after the work.
         */
        CHARGE
    }

    private final Object[] handles;
    private final CountKey[] keys;
    private final RateLimitPolicy[] policies;
    private final int[] costs;
    private final Kind[] kinds;
    private final long[] maxWaitNanos;
    private final boolean waits;
    private final int[] lockOrder;
    private final int[] tags;
    // limit 0 once more, outside the arrays: a store deciding a request of one limit reads it one reference sooner
    private final int size;
    private final Object handle0;
    private final RateLimitPolicy policy0;
    private final int cost0;
    private final Kind kind0;
    private final int tag0;

    private RateLimitRequest(Builder b) {
        int n = b.keys.size();
        this.handles = b.handles.toArray();
        this.keys = b.keys.toArray(new CountKey[n]);
        this.policies = b.policies.toArray(new RateLimitPolicy[n]);
        this.kinds = b.kinds.toArray(new Kind[n]);
        this.maxWaitNanos = new long[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            maxWaitNanos[i] = b.maxWaits.get(i);
            any |= maxWaitNanos[i] > 0;
        }
        this.waits = any;
        this.costs = new int[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            costs[i] = b.costs.get(i);
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Integer.compare(keys[x].id(), keys[y].id()));
        this.lockOrder = new int[n];
        for (int i = 0; i < n; i++) {
            lockOrder[i] = order[i];
        }
        this.size = n;
        this.handle0 = handles[0];
        this.policy0 = policies[0];
        this.cost0 = costs[0];
        this.kind0 = kinds[0];
        this.tags = new int[n];
        for (int i = 0; i < n; i++) {
            tags[i] = b.tags.get(i);
        }
        this.tag0 = tags[0];
    }

    /** A request of one limit. */
    public static RateLimitRequest of(Object handle, CountKey key, RateLimitPolicy policy, int cost, Kind kind) {
        return builder().add(handle, key, policy, cost, kind).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The number of limits, at least 1. */
    public int size() {
        return size;
    }

    /** The store's handle on the counts of limit {@code i}: what {@link RateLimitStore#bind} returned for its key. */
    public Object handle(int i) {
        return i == 0 ? handle0 : handles[i];
    }

    /** The counts limit {@code i} spends from. */
    public CountKey key(int i) {
        return keys[i];
    }

    /** The policy of limit {@code i}: what the caller sees in headers, and what a new count is sized by. */
    public RateLimitPolicy policy(int i) {
        return i == 0 ? policy0 : policies[i];
    }

    /**
     * How long a call may wait for limit {@code i}'s permits ({@code maxWaitMillis}), in nanoseconds: 0 (the default)
     * refuses at once when they are not there; more reserves them when they will exist within that time.
     */
    public long maxWaitNanos(int i) {
        return maxWaitNanos[i];
    }

    /** True when some limit may wait ({@link #maxWaitNanos} above 0). */
    public boolean waits() {
        return waits;
    }

    /** Permits one call spends from limit {@code i}, {@code >= 1}. */
    public int cost(int i) {
        return i == 0 ? cost0 : costs[i];
    }

    /** How limit {@code i} spends. */
    public Kind kind(int i) {
        return i == 0 ? kind0 : kinds[i];
    }

    /**
     * The sizing tag of limit {@code i} (live values): a number that changes whenever the configuration
     * changes the size of its counts (permit limit, window, algorithm). A count remembers the tag of the request
     * that sized it; a request with another tag re-sizes it before deciding: a new permit limit is adopted with
     * the permits spent kept, a new window or algorithm starts the count afresh. Within one tag a count keeps the
     * size of the request that created it (limits sharing a name). Equal on every instance with the same configuration
     * (a shared store compares tags of several JVMs); 0 by default.
     */
    public int tag(int i) {
        return i == 0 ? tag0 : tags[i];
    }

    /**
     * The index of the {@code k}-th limit in the order of their keys' {@link CountKey#id()}: an order
     * that is the same for every request, for a store that locks the counts of a request one by one.
     */
    public int lockOrder(int k) {
        return lockOrder[k];
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("RateLimitRequest[");
        for (int i = 0; i < keys.length; i++) {
            if (i > 0) {
                s.append(", ");
            }
            s.append(policies[i]);
            if (keys[i].plan() != null) {
                s.append(" plan ").append(keys[i].plan());
            }
            if (costs[i] != 1) {
                s.append(" cost ").append(costs[i]);
            }
            if (kinds[i] != Kind.ACQUIRE) {
                s.append(' ').append(kinds[i]);
            }
            if (maxWaitNanos[i] > 0) {
                s.append(" wait ").append(maxWaitNanos[i] / 1_000_000).append(" ms");
            }
        }
        return s.append(']').toString();
    }

    /** Builds a {@link RateLimitRequest}; not thread-safe. */
    public static final class Builder {
        private final List<Object> handles = new ArrayList<>(4);
        private final List<CountKey> keys = new ArrayList<>(4);
        private final List<RateLimitPolicy> policies = new ArrayList<>(4);
        private final List<Integer> costs = new ArrayList<>(4);
        private final List<Kind> kinds = new ArrayList<>(4);
        private final List<Long> maxWaits = new ArrayList<>(4);
        private final List<Integer> tags = new ArrayList<>(4);

        private Builder() {
        }

        /**
         * Adds a limit.
         *
         * @param handle what the store's {@link RateLimitStore#bind} returned for {@code key}
         * @param key    the counts it spends from; no two limits of a request may name the same counts
         * @param policy its policy; its name is the key's
         * @param cost   permits one call spends, {@code >= 1}
         * @param kind   how it spends
         * @throws IllegalArgumentException naming what is wrong
         */
        public Builder add(Object handle, CountKey key, RateLimitPolicy policy, int cost, Kind kind) {
            return add(handle, key, policy, cost, kind, 0);
        }

        /**
         * Adds a limit that may wait for its permits.
         *
         * @param maxWaitNanos how long a call may wait for the permits, {@code >= 0}; above 0 only for
         *                     {@link Kind#ACQUIRE}
         * @throws IllegalArgumentException naming what is wrong
         */
        public Builder add(Object handle, CountKey key, RateLimitPolicy policy, int cost, Kind kind, long maxWaitNanos) {
            if (maxWaitNanos < 0 || (maxWaitNanos > 0 && kind != Kind.ACQUIRE)) {
                throw new IllegalArgumentException("the wait of " + policy + " must be >= 0, and 0 unless it acquires, was "
                        + maxWaitNanos + " ns (" + kind + ")");
            }
            if (key == null || policy == null || kind == null) {
                throw new IllegalArgumentException("key, policy and kind must not be null");
            }
            if (!policy.name().equals(key.name())) {
                throw new IllegalArgumentException("the policy " + policy + " does not belong to the counts " + key);
            }
            if (policy.algorithm() != key.algorithm()) {
                throw new IllegalArgumentException("the policy " + policy + " has another algorithm than its counts "
                        + key + " (" + key.algorithm() + ")");
            }
            if (cost < 1) {
                throw new IllegalArgumentException("the cost of " + policy + " must be >= 1, was " + cost);
            }
            for (CountKey k : keys) {
                if (k.sameCounts(key)) {
                    throw new IllegalArgumentException("the counts " + key + " appear twice in one request: "
                            + "it would spend from them twice");
                }
            }
            handles.add(handle);
            keys.add(key);
            policies.add(policy);
            costs.add(cost);
            kinds.add(kind);
            maxWaits.add(maxWaitNanos);
            tags.add(0);
            return this;
        }

        /** Sets the {@linkplain RateLimitRequest#tag sizing tag} of the limit added last. */
        public Builder tag(int tag) {
            if (keys.isEmpty()) {
                throw new IllegalStateException("add a limit before its tag");
            }
            tags.set(tags.size() - 1, tag);
            return this;
        }

        /** @throws IllegalArgumentException when no limit was added */
        public RateLimitRequest build() {
            if (keys.isEmpty()) {
                throw new IllegalArgumentException("a request needs at least one limit");
            }
            return new RateLimitRequest(this);
        }
    }
}
