package dev.ratelimit.core.live;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.binding.ArgumentKeys;
import dev.ratelimit.core.binding.BoundKey;
import dev.ratelimit.core.binding.LimitBinder;
import dev.ratelimit.core.binding.LiveLimits;
import dev.ratelimit.core.binding.RefusalSummary;
import dev.ratelimit.core.binding.RefusalSummary.Refused;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.log.LogText;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The admin API, on the engine: the effective limits, one caller's count read without spending, a count
 * started afresh, and the partitions a limit refused most. Everything is read from the configuration in force. The
 * CDI bean {@code dev.ratelimit.RateLimitAdmin} and the HTTP resource are adapters over it. Thread-safe.
 */
public final class LimitAdmin {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private final LimitBinder binder;
    private final ArgumentKeys argumentKeys;

    /**
     * @param argumentKeys the digests of keys the request path counts limits per argument by
     */
    public LimitAdmin(LimitBinder binder, ArgumentKeys argumentKeys) {
        this.binder = binder;
        this.argumentKeys = argumentKeys;
    }

    /** Every limit the application declares (annotations, the global limit, configuration), in order of declaration. */
    public List<LimitView> limits() {
        LiveLimits live = binder.live();
        List<LimitView> all = new ArrayList<>();
        binder.declaredNames().forEach((name, where) -> {
            RateLimitPolicy declared = binder.declaredPolicy(name);
            RateLimitPolicy configured = live.settings.configuredLimit(name);
            RateLimitPolicy base = configured != null && where.stream().allMatch(w -> w.startsWith("configuration"))
                    ? configured : declared;
            Effective none = live.settings.effective(base, null);
            Map<String, PlanView> plans = new LinkedHashMap<>();
            for (int p = 1; p < live.plans.size(); p++) {
                Plan plan = live.plans.get(p);
                Effective e = live.settings.effective(base, plan);
                if (!e.policy().equals(none.policy()) || e.mode() != none.mode()) {
                    plans.put(plan.name(), new PlanView(e.policy().permitLimit(), e.policy().windowSeconds(),
                            e.policy().algorithm(), e.mode()));
                }
            }
            all.add(new LimitView(name, none.policy().permitLimit(), none.policy().windowSeconds(),
                    none.policy().algorithm(), none.mode(), plans, where));
        });
        return all;
    }

    /**
     * One caller's count of one limit, read without spending.
     *
     * @param plan null for callers in no plan
     * @throws IllegalArgumentException naming the limit (or the plan) when nothing declares it, or when the limit
     *                                  is off for that plan
     */
    public CompletionStage<CountState> count(String name, String partition, String plan) {
        RateLimitRequest request = request(name, plan);
        return request.handle(0) == null ? CompletableFuture.completedFuture(CountState.untouched(request.policy(0)))
                : binder.store().inspect(partition, request);
    }

    /**
     * Starts one caller's count of one limit afresh (every permit back, debt forgiven); on a shared store for every
     * instance. Logged with the limit, the partition and who asked.
     *
     * @param who how the log names the caller who asked
     * @throws IllegalArgumentException as {@link #count}
     */
    public CompletionStage<Void> reset(String name, String partition, String plan, String who) {
        RateLimitRequest request = request(name, plan);
        CompletionStage<Void> restarted = request.handle(0) == null ? CompletableFuture.completedFuture(null)
                : binder.store().restart(partition, request);
        // every value here came with the request (or the bean call): escaped, so none can write a line of its own
        return restarted.thenRun(() -> LOG.log(Level.INFO, "ratelimit: the count of " + LogText.quoted(name)
                + (plan == null ? "" : " (plan " + LogText.quoted(plan) + ")") + " for the partition "
                + LogText.quoted(partition) + " was started afresh, asked by " + LogText.of(who)));
    }

    /**
     * The partition a limit per argument counts a key's value in: {@code arg:} and its digest, the value normalised as
     * the method that first declared the limit normalises it. The admin API finds a caller's count by the value
     * (a username, a phone number) without it ever being kept in clear.
     *
     * @throws IllegalArgumentException naming the limit when nothing declares it ({@link UnknownLimitException}), or
     *                                  when it is not counted per argument (its partitions are not digests of a value)
     */
    public String keyPartition(String name, String key) {
        if (binder.declaredPolicy(name) == null && binder.live().settings.configuredLimit(name) == null) {
            throw unknown(name);
        }
        RateLimitPer per = binder.perOf(name);
        if (per != RateLimitPer.ARGUMENT) {
            // a digest of the value would name a partition this limit never counts in: an operator would think they
            // read or reset a count they did not
            throw new IllegalArgumentException("ratelimit: the limit " + LogText.quoted(name) + " counts per "
                    + per.name().toLowerCase(Locale.ROOT) + ", not per argument: find its count by the "
                    + "partition (.../partitions/{partition}), not by ?key=");
        }
        return argumentKeys.partition(key, binder.exactKeys(name));
    }

    /**
     * The partitions the limit refused most since start-up, most first, each with its possible overcount.
     *
     * @param top how many, {@code >= 1}
     * @throws IllegalArgumentException naming the limit when nothing declares it, or when {@code top < 1}
     */
    public List<Refused> refused(String name, int top) {
        if (top < 1) {
            throw new IllegalArgumentException("ratelimit: top must be >= 1, was " + top);
        }
        RefusalSummary summary = binder.refusals(name);
        if (summary == null) {
            throw unknown(name);
        }
        return summary.top(top);
    }

    /** The request that reads or restarts one (name, plan)'s counts, in the configuration in force. */
    private RateLimitRequest request(String name, String plan) {
        LiveLimits live = binder.live();
        RateLimitPolicy declared = binder.declaredPolicy(name);
        RateLimitPolicy configured = live.settings.configuredLimit(name);
        if (declared == null && configured == null) {
            throw unknown(name);
        }
        Plan p = null;
        if (plan != null) {
            p = live.plans.named(plan);
            if (p == null) {
                throw new UnknownLimitException("ratelimit: no plan is named " + LogText.quoted(plan));
            }
        }
        BoundKey key = live.keyOf(name, plan);
        Effective effective = live.settings.effective(declared != null ? declared : configured, p);
        if (effective.mode() == RateLimitMode.OFF) {
            throw new IllegalArgumentException("ratelimit: the limit \"" + name + "\" is off"
                    + (plan == null ? "" : " for the plan \"" + plan + "\"") + ": it keeps no count");
        }
        RateLimitPolicy policy = effective.policy();
        if (key == null) {
            // on, but no call has bound it yet (a limit only the programmatic API spends from): it has no count
            return RateLimitRequest.of(null, new dev.ratelimit.core.CountKey(name, plan, policy.algorithm()), policy, 1,
                    Kind.ACQUIRE);
        }
        return key.countRequest(policy);
    }

    private static IllegalArgumentException unknown(String name) {
        return new UnknownLimitException("ratelimit: no limit is named " + LogText.quoted(name));
    }

    /**
     * No limit (or no plan) has the name asked for: what the admin API over HTTP answers with 404, where any other
     * {@code IllegalArgumentException} is a request it cannot answer (400).
     */
    public static final class UnknownLimitException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnknownLimitException(String message) {
            super(message);
        }
    }

    /**
     * A limit as configured now.
     *
     * @param plans      the plans that change it, by name (values of that plan)
     * @param declaredOn where it is declared: call sites ({@code TodoResource.all()}), {@code ratelimit.global.*},
     *                   or the configuration
     */
    public record LimitView(String name, int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm,
                            RateLimitMode mode, Map<String, PlanView> plans, List<String> declaredOn) {
    }

    /** A limit's values for the callers of one plan. */
    public record PlanView(int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm, RateLimitMode mode) {
    }
}
