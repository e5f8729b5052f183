package dev.ratelimit.core.binding;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.declaration.Counting;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One call site in one configuration: per plan, the parts the store is asked (overrides, modes and plans applied, the
 * limits that are off left out, limits grouped by the partition they count in and by what they count) and their
 * bound keys. Holds the call site's limits to what only the configuration can make invalid: a cost above an
 * overridden limit, a wait on a resource method or on a limit that counts only failures, a {@code per = ARGUMENT}
 * limit without a key (or a key without one), one without {@code ratelimit.key-secret} on a shared store, a
 * {@code per = ADDRESS} limit where the runtime cannot tell addresses, a plan's values for a limit per address or per
 * argument (plans do not split those counts).
 *
 * <p>Not thread-safe: the binder calls it holding its own lock.
 */
final class CallSiteBinder {

    private final CountBindings counts;
    /** How messages name the store, when it is shared and no {@code ratelimit.key-secret} is set; else null. */
    private final String sharedStoreWithoutSecret;

    /**
     * @param sharedStoreWithoutSecret the store's name when it is shared by instances and {@code ratelimit.key-secret}
     *                                 is unset (then a {@code per = ARGUMENT} limit fails); else null
     */
    CallSiteBinder(CountBindings counts, String sharedStoreWithoutSecret) {
        this.counts = counts;
        this.sharedStoreWithoutSecret = sharedStoreWithoutSecret;
    }

    /**
     * What the store is asked for one call site in one configuration, per plan. Binds each (name, plan) into
     * {@code keys} the first time this configuration meets it.
     */
    LiveLimits.Site bind(RateLimitSettings settings, PlanIndex plans, List<LimitDeclaration> declaredLimits,
                         BoundLimits.Shape shape, Map<String, BoundKey> keys) {
        List<LimitDeclaration> limits = withGlobal(settings, declaredLimits, shape.scope());
        int n = limits.size();
        long[] maxWaitNanos = new long[n];
        Counting[] counting = new Counting[n];
        boolean[] decided = new boolean[n];
        boolean byArgument = false;
        for (int i = 0; i < n; i++) {
            LimitDeclaration declared = limits.get(i);
            counting[i] = Counting.of(settings, declared);
            boolean perArgument = counting[i].per() == RateLimitPer.ARGUMENT;
            byArgument |= perArgument;
            decided[i] = shape.decides() == BoundLimits.Decides.ALL
                    || (shape.decides() == BoundLimits.Decides.PER_ARGUMENT) == perArgument;
            maxWaitNanos[i] = TimeUnit.MILLISECONDS.toNanos(maxWait(settings, declared, shape));
            if (decided[i] || perArgument) { // a resource method's filters check those its interceptor decides too
                check(settings, declared, counting[i], shape);
            }
        }
        if (shape.key() != null && !byArgument && shape.use() == BoundLimits.Use.CALL_SITE
                && shape.decides() != BoundLimits.Decides.NOT_PER_ARGUMENT) {
            throw new InvalidRateLimitException(LimitRules.keyWithoutArgumentLimit(shape.where(), shape.key())
                    + " (after configuration)");
        }
        LiveLimits.Part[] byPlan = new LiveLimits.Part[plans.size()];
        for (int p = 0; p < plans.size() && settings.enabled(); p++) {
            Plan plan = plans.get(p);
            List<Entry> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                if (!decided[i]) {
                    continue;
                }
                LimitDeclaration declared = limits.get(i);
                Effective effective = settings.effective(declared.policy(), plan);
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                RateLimitPolicy policy = effective.policy();
                if (shape.use() == BoundLimits.Use.CALL_SITE) {
                    String costError = LimitRules.costError(declared.cost(), policy.permitLimit(),
                            (plan == null ? "" : " for the plan \"" + plan.name() + "\"") + ", after configuration");
                    if (costError != null) {
                        throw new InvalidRateLimitException(origin(declared) + " on " + shape.where() + ": " + costError);
                    }
                }
                BoundKey key = counts.key(settings, keys, policy, plan, effective.mode(), shape.where(), counting[i]);
                Kind kind = shape.use() == BoundLimits.Use.CHARGE ? Kind.CHARGE
                        : effective.mode() == RateLimitMode.SHADOW ? Kind.SHADOW : Kind.ACQUIRE;
                long maxWait = kind == Kind.ACQUIRE ? maxWaitNanos[i] : 0; // a shadow limit never holds a call back
                if (maxWait > 0) {
                    key.mayWait(counts.waitTimer(policy.name()));
                }
                entries.add(new Entry(key, policy, shape.use() == BoundLimits.Use.CALL_SITE ? declared.cost() : 1, kind,
                        maxWait, counting[i]));
            }
            byPlan[p] = parts(entries, shape);
        }
        return new LiveLimits.Site(byPlan);
    }

    /** How long a call of the site may wait for a declared limit's permits, in milliseconds; validated. */
    private static long maxWait(RateLimitSettings settings, LimitDeclaration declared, BoundLimits.Shape shape) {
        LimitValues configured = settings.limit(declared.name());
        long maxWait = shape.use() != BoundLimits.Use.CALL_SITE ? 0 // the programmatic API never waits
                : configured.maxWaitMillis() != null ? configured.maxWaitMillis() : declared.maxWaitMillis();
        if (maxWait > 0) {
            String source = configured.maxWaitMillis() != null ? key(declared, RateLimitSettings.MAX_WAIT_MILLIS)
                    : LimitDeclaration.MAX_WAIT_MILLIS;
            if (shape.oncePerRequest()) {
                throw new InvalidRateLimitException(origin(declared) + " on " + shape.where() + ": "
                        + LimitRules.resourceMethodWaits(declared.name(), source, maxWait));
            }
            if (Counting.of(settings, declared).failuresOnly()) {
                throw new InvalidRateLimitException(origin(declared) + " on " + shape.where() + ": "
                        + LimitRules.failuresOnlyWaits(declared.name(), source, maxWait));
            }
        }
        return maxWait;
    }

    /** What only the configuration can make wrong with whose count a limit that the site decides spends from. */
    private void check(RateLimitSettings settings, LimitDeclaration declared, Counting counting, BoundLimits.Shape shape) {
        String on = origin(declared) + " on " + shape.where() + ": ";
        String perSource = settings.limit(declared.name()).per() != null ? key(declared, RateLimitSettings.PER)
                : LimitDeclaration.PER;
        if (counting.per() == RateLimitPer.ARGUMENT) {
            if (declared.declaredOn() == DeclaredOn.GLOBAL || declared.declaredOn() == DeclaredOn.MODULE) {
                throw new InvalidRateLimitException(on + LimitRules.argumentNotOnTheMethod(declared.name(),
                        declared.declaredOn()));
            }
            if (shape.key() == null && shape.use() == BoundLimits.Use.CALL_SITE) {
                throw new InvalidRateLimitException(on + LimitRules.argumentWithoutKey(declared.name(), perSource));
            }
            if (sharedStoreWithoutSecret != null) {
                throw new InvalidRateLimitException(LimitRules.keySecretRequired(declared.name(), sharedStoreWithoutSecret));
            }
        }
        if (CountBindings.perClient(counting.per())) {
            String planKey = planValue(settings, declared.name());
            if (planKey != null) {
                throw new InvalidRateLimitException(on + planKey + ": the limit \"" + declared.name() + "\" counts per "
                        + counting.per().name().toLowerCase(Locale.ROOT) + (perSource.equals(LimitDeclaration.PER) ? ""
                        : " (" + perSource + ")") + ", one count per "
                        + (counting.per() == RateLimitPer.ADDRESS ? "address" : "argument") + " whatever the caller's "
                        + "plan: a client can claim a plan but not another address or account, so a plan cannot "
                        + "change it; remove the key");
            }
        }
        if (counting.per() == RateLimitPer.ADDRESS && !shape.addressesKnown()
                && shape.decides() != BoundLimits.Decides.PER_ARGUMENT) {
            throw new InvalidRateLimitException(on + LimitRules.addressesUnknown(declared.name()));
        }
    }

    /**
     * The first {@code ratelimit.plans.<plan>.limits.<name>.<property>=<value>} that {@code settings} set for the name,
     * or null when no plan gives it values.
     */
    private static String planValue(RateLimitSettings settings, String name) {
        for (Plan plan : settings.plans()) {
            LimitValues values = settings.plan(plan, name);
            String prefix = RateLimitSettings.PLANS + "." + plan.name() + ".limits." + name + ".";
            if (values.permitLimit() != null) {
                return prefix + RateLimitSettings.PERMIT_LIMIT + "=" + values.permitLimit();
            }
            if (values.windowSeconds() != null) {
                return prefix + RateLimitSettings.WINDOW_SECONDS + "=" + values.windowSeconds();
            }
            if (values.algorithm() != null) {
                return prefix + RateLimitSettings.ALGORITHM + "=" + values.algorithm();
            }
            if (values.mode() != null) {
                return prefix + RateLimitSettings.MODE_PROPERTY + "=" + values.mode().name().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** {@code ratelimit.limits.<name>.<property>}. */
    private static String key(LimitDeclaration declared, String property) {
        return RateLimitSettings.LIMITS + declared.name() + "." + property;
    }

    /** One limit of a part, bound. */
    private record Entry(BoundKey key, RateLimitPolicy policy, int cost, Kind kind, long maxWaitNanos, Counting counting) {

        /** Which partition it counts in: the ledger's for a caller's and the application's count. */
        RateLimitPer partition() {
            return counting.per() == RateLimitPer.APPLICATION ? RateLimitPer.CALLER : counting.per();
        }

        /** The statuses that are failures, or null when every call counts. */
        FailureStatuses failures() {
            return counting.failuresOnly() ? counting.statuses() : null;
        }
    }

    /**
     * The limits grouped into parts, in the order of their first limit: those that count in one partition and count
     * the same things share a part. Null when no limit applies.
     */
    private static LiveLimits.Part parts(List<Entry> entries, BoundLimits.Shape shape) {
        if (entries.isEmpty()) {
            return null;
        }
        List<List<Entry>> groups = new ArrayList<>(1);
        for (Entry entry : entries) {
            List<Entry> group = null;
            for (List<Entry> g : groups) {
                if (g.get(0).partition() == entry.partition() && Objects.equals(g.get(0).failures(), entry.failures())) {
                    group = g;
                    break;
                }
            }
            if (group == null) {
                group = new ArrayList<>(entries.size());
                groups.add(group);
            }
            group.add(entry);
        }
        if (groups.size() > 1) {
            for (Entry entry : entries) {
                if (entry.maxWaitNanos > 0) {
                    // the parts are decided one after the other, each at its own instant: a reservation is all or nothing
                    throw new InvalidRateLimitException("@RateLimit on " + shape.where() + ": the limit \""
                            + entry.policy.name() + "\" may wait, but the method's limits are decided in " + groups.size()
                            + " parts (per address or per argument, or counting only failures, beside the others): "
                            + "a limit that waits must be decided with every other limit of its call; set its wait to 0");
                }
            }
        }
        LiveLimits.Part next = null;
        for (int g = groups.size() - 1; g >= 0; g--) {
            List<Entry> group = groups.get(g);
            RateLimitRequest.Builder request = RateLimitRequest.builder();
            BoundKey[] keys = new BoundKey[group.size()];
            for (int i = 0; i < keys.length; i++) {
                Entry e = group.get(i);
                request.add(e.key.handle, e.key.key, e.policy, e.cost, e.kind, e.maxWaitNanos).tag(e.key.tag);
                keys[i] = e.key;
            }
            next = new LiveLimits.Part(request.build(), keys, group.get(0).partition(), group.get(0).failures(),
                    shape.byStatus(), next);
        }
        return next;
    }

    /** How messages name what declared a limit: the annotation, or the configuration's global limit. */
    private static String origin(LimitDeclaration declared) {
        return declared.declaredOn() == DeclaredOn.GLOBAL ? LimitDeclaration.GLOBAL_PLACE : "@RateLimit";
    }

    /** Whose count a declared limit spends from in {@code settings}: {@code ratelimit.limits.<name>.per} wins. */
    static RateLimitPer per(RateLimitSettings settings, LimitDeclaration declared) {
        RateLimitPer configured = settings.limit(declared.name()).per();
        return configured != null ? configured : declared.per();
    }

    /**
     * A resource method's limits of one scope with the global limit of {@code settings} in first place (when set,
     * and of that scope) instead of the one it was resolved with; other call sites' limits as resolved. The limits a
     * resource method decides per argument are resolved with it, whatever their scope: its global limit is never one.
     */
    private static List<LimitDeclaration> withGlobal(RateLimitSettings settings, List<LimitDeclaration> limits,
                                                     RateLimitScope scope) {
        if (scope == null) {
            return limits;
        }
        List<LimitDeclaration> all = new ArrayList<>(limits.size() + 1);
        if (settings.global() != null && settings.globalScope() == scope) {
            all.add(LimitDeclaration.global(settings.global(), scope));
        }
        for (LimitDeclaration declared : limits) {
            if (declared.declaredOn() != DeclaredOn.GLOBAL) {
                all.add(declared);
            }
        }
        return all;
    }
}
