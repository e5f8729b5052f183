package dev.ratelimit.core;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which counts a limit spends from: those of one limit name for the callers of one plan (or of no plan).
 * A count is kept per (key, partition); a key {@linkplain #perApplication() per application} has one count for
 * every partition, that of the partition {@value #APPLICATION}. A key per address or per argument has no plan: one
 * count per address or argument whatever the caller's plan, since a client can claim a plan but not another address
 * or account (docs/login-protection.md, "Plans do not split these counts"). The engine makes one key per (name, plan) when the application
 * deploys and binds it to the store ({@link RateLimitStore#bind}); requests then never look a count up
 * by name. Immutable.
 */
public final class CountKey {

    /** One id per (name, plan) for the life of the JVM: every key of the same counts has the same id. */
    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT_ID = new AtomicInteger();

    /** The partition of every count of a key per application. */
    public static final String APPLICATION = "application";

    private final String name;
    private final String plan;
    private final RateLimitAlgorithm algorithm;
    private final RateLimitPer per;
    private final boolean perApplication;
    private final boolean failuresOnly;
    private final int id;

    /** A key per caller: {@link #CountKey(String, String, RateLimitAlgorithm, RateLimitPer)} with {@code CALLER}. */
    public CountKey(String name, String plan, RateLimitAlgorithm algorithm) {
        this(name, plan, algorithm, RateLimitPer.CALLER);
    }

    /**
     * @param name      the limit name, as {@link RateLimitPolicy#name()}
     * @param plan      the plan, or null for callers in no plan
     * @param algorithm the algorithm of every limit with this name
     * @param per       whose count: each caller's, the application's (one for every partition), a client address's or
     *                  an argument value's (each its own partition)
     */
    public CountKey(String name, String plan, RateLimitAlgorithm algorithm, RateLimitPer per) {
        this(name, plan, algorithm, per, false);
    }

    /**
     * @param name         the limit name, as {@link RateLimitPolicy#name()}
     * @param plan         the plan, or null for callers in no plan; null for a key per address or per argument
     * @param algorithm    the algorithm of every limit with this name
     * @param per          whose count
     * @param failuresOnly true when the limit counts only failures (a success gives its permit back): a store that has
     *                     no room for a new count of such a key refuses the request rather than let it through
     *                     uncounted, as a guess let through uncounted is a guess the limit never sees
     * @throws IllegalArgumentException naming the value: a malformed name or plan, a plan on a key per address or per
     *                                  argument
     */
    public CountKey(String name, String plan, RateLimitAlgorithm algorithm, RateLimitPer per, boolean failuresOnly) {
        if (name == null || !RateLimitPolicy.NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must be 1-64 characters from [A-Za-z0-9._-], was " + name);
        }
        if (plan != null && !RateLimitPolicy.NAME.matcher(plan).matches()) {
            throw new IllegalArgumentException("plan must be 1-64 characters from [A-Za-z0-9._-], was " + plan);
        }
        if (plan != null && (per == RateLimitPer.ADDRESS || per == RateLimitPer.ARGUMENT)) {
            throw new IllegalArgumentException("the counts of \"" + name + "\" are per " + per
                    + ": one count per address or argument whatever the plan, so no plan, was " + plan);
        }
        this.name = name;
        this.plan = plan;
        this.failuresOnly = failuresOnly;
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.per = Objects.requireNonNull(per, "per");
        this.perApplication = per == RateLimitPer.APPLICATION;
        this.id = IDS.computeIfAbsent(toString(), k -> NEXT_ID.incrementAndGet());
    }

    /** The limit name. */
    public String name() {
        return name;
    }

    /** The plan whose callers spend from these counts; null for callers in no plan. */
    public String plan() {
        return plan;
    }

    /** The algorithm of the counts. */
    public RateLimitAlgorithm algorithm() {
        return algorithm;
    }

    /**
     * Whose count: {@link RateLimitPer#ADDRESS} and {@link RateLimitPer#ARGUMENT} keys are asked with partitions of their
     * own ({@code addr:<client>}, {@code arg:<digest>}); a store keeps them as it keeps a caller's.
     */
    public RateLimitPer per() {
        return per;
    }

    /**
     * True when the limit counts only failures: with no room for a new count a store refuses the request (with the
     * window as its retry-after) instead of letting it through uncounted.
     */
    public boolean failuresOnly() {
        return failuresOnly;
    }

    /** True when one count serves every caller: a store keeps it under the partition {@value #APPLICATION}. */
    public boolean perApplication() {
        return perApplication;
    }

    /** The partition a store keeps this key's count of {@code partition} under: {@value #APPLICATION} per application. */
    public String partition(String partition) {
        return perApplication ? APPLICATION : partition;
    }

    /**
     * A number unique to the counts this key names (its name and plan) in this JVM: keys of the same counts
     * have the same id, keys of other counts another. A fixed global order, in which a store may lock the
     * counts of one request so that no two requests deadlock.
     */
    public int id() {
        return id;
    }

    /** True when both keys name the same counts: the same name and plan. */
    public boolean sameCounts(CountKey other) {
        return name.equals(other.name) && Objects.equals(plan, other.plan);
    }

    /** {@code burst} or {@code burst/gold}. */
    @Override
    public String toString() {
        return plan == null ? name : name + '/' + plan;
    }
}
