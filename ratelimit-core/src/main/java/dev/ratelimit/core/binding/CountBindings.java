package dev.ratelimit.core.binding;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.Counting;
import dev.ratelimit.core.declaration.SharedNames;
import dev.ratelimit.core.guard.GuardedStore;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.metrics.RateLimitMetrics.Counter;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What each (limit name, plan) is bound to once and keeps in every configuration: its count key and the store's
 * handle on it (per algorithm and whose count), its metric counters, its shadow log, the partitions it refused most,
 * and how long calls waited for it. Makes the {@link BoundKey} of a (name, plan) in one configuration, and holds the
 * limits sharing a name to one algorithm, one {@code per} and one thing counted there ({@link SharedNames}).
 *
 * <p>Not thread-safe: the binder calls it holding its own lock.
 */
final class CountBindings {

    private final GuardedStore store;
    private final RateLimitMetrics metrics;
    private final LongSupplier clock;
    /** Per name/plan, algorithm and whose count: its count key and the store's handle. */
    private final Map<String, StoreBinding> storeBindings = new HashMap<>();
    /** Per name or name/plan, its metric counters. */
    private final Map<String, Counter[]> counters = new HashMap<>();
    private final Map<String, ShadowLog> shadowLogs = new HashMap<>();
    /** Per name, the partitions it refused most. */
    private final Map<String, RefusalSummary> refusals = new HashMap<>();
    /** Per name, how long calls waited for its permits; made when a call site that may wait binds it. */
    private final Map<String, RateLimitMetrics.Timer> waitTimers = new HashMap<>();

    /** A count key, and the store's handle on its counts. */
    private record StoreBinding(CountKey key, Object handle) {
    }

    CountBindings(GuardedStore store, RateLimitMetrics metrics, LongSupplier clock) {
        this.store = store;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The key of (name, plan) in one configuration: found in {@code keys} (what that configuration bound so far), or
     * bound there now.
     *
     * @param where    the call site binding it, named in a conflict
     * @param counting whose count and what it counts, configuration applied
     * @throws InvalidRateLimitException when the name was bound there with another algorithm, another {@code per} or
     *                                   another thing counted; the message names both call sites
     */
    BoundKey key(RateLimitSettings settings, Map<String, BoundKey> keys, RateLimitPolicy policy, Plan plan,
                 RateLimitMode mode, String where, Counting counting) {
        RateLimitPer per = counting.per();
        // per address or per argument: one count whatever the plan (a client can claim a plan, not another address or
        // account), so one key, its metric series and sizing those of no plan (docs/login-protection.md,
        // "Plans do not split these counts")
        Plan counted = perClient(per) ? null : plan;
        String id = counted == null ? policy.name() : policy.name() + '/' + counted.name();
        BoundKey key = keys.get(id);
        if (key == null) {
            StoreBinding bound = storeBindings.computeIfAbsent(id + '#' + policy.algorithm() + '#' + per + '#'
                    + counting.failuresOnly(), k -> {
                CountKey countKey = new CountKey(policy.name(), counted == null ? null : counted.name(),
                        policy.algorithm(), per, counting.failuresOnly());
                return new StoreBinding(countKey, store.bind(countKey));
            });
            ShadowLog shadow = shadowLogs.computeIfAbsent(policy.name(), n -> new ShadowLog(n, clock));
            key = new BoundKey(bound.key(), bound.handle(), mode, counting, where, shadow,
                    counters.computeIfAbsent(id, k -> BoundKey.counters(bound.key(), metrics)),
                    sizingTag(settings, policy.name(), counted), refusals(policy.name()));
            keys.put(id, key);
        } else if (key.key.algorithm() != policy.algorithm()) {
            throw new InvalidRateLimitException(SharedNames.algorithmsDiffer(policy.name(), key.firstWhere,
                    key.key.algorithm(), where, policy.algorithm(), plan == null ? null : plan.name()));
        } else if (key.key.per() != per) {
            throw new InvalidRateLimitException(SharedNames.perDiffers(policy.name(), key.firstWhere, key.key.per(),
                    where, per));
        } else if (!key.counting.equals(counting)) {
            throw new InvalidRateLimitException(SharedNames.countingDiffers(policy.name(), key.firstWhere, key.counting,
                    where, counting));
        }
        return key;
    }

    /** True for the counts that plans do not split: per address, per argument. */
    static boolean perClient(RateLimitPer per) {
        return per == RateLimitPer.ADDRESS || per == RateLimitPer.ARGUMENT;
    }

    /** The partitions a name refused most, made on first use. */
    RefusalSummary refusals(String name) {
        return refusals.computeIfAbsent(name, n -> new RefusalSummary(RefusalSummary.DEFAULT_CAPACITY));
    }

    /** How long calls waited for a name's permits, made on first use. */
    RateLimitMetrics.Timer waitTimer(String name) {
        return waitTimers.computeIfAbsent(name, metrics::waited);
    }

    /**
     * The sizing tag of (name, plan) in {@code settings}: a digest of every value of the configuration that sizes
     * its counts ({@code ratelimit.limits.<name>.*}, the plan's, and {@code ratelimit.global.*} for the global
     * limit's name), the same on every instance with the same configuration.
     */
    static int sizingTag(RateLimitSettings settings, String name, Plan plan) {
        int tag = digest(settings.limit(name));
        if (plan != null) {
            tag = 31 * tag + digest(settings.plan(plan, name));
        }
        RateLimitPolicy global = settings.global();
        if (global != null && global.name().equals(name)) {
            tag = 31 * tag + global.permitLimit() * 17 + global.windowSeconds();
        }
        return tag;
    }

    private static int digest(LimitValues values) {
        return Objects.hash(values.permitLimit(), values.windowSeconds(),
                values.algorithm() == null ? null : values.algorithm().name());
    }
}
