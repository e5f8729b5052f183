package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What the failure policy answers in the store's place, once {@link GuardedStore} found that the store cannot decide
 * a call: {@code allow}, a decision that counts nothing; {@code local}, the decision of an in-process store kept for
 * outages. ({@code fail} answers nothing: {@link GuardedStore} throws.) Where the store could not answer is
 * {@link GuardedStore}'s job; what is answered then is this one's.
 *
 * <p>Such a decision answers a twin of the request: the same limits bound to the local store. So the decision says
 * itself that the store did not make it (its request is not the one asked), and {@link #giveBack} knows it is this
 * one's to give back. Twins are made on the first failure of a request and kept ({@code twins}, {@code twinSet}:
 * concurrent, only added to). Thread-safe.
 */
final class PolicyDecisions {

    private final InProcessRateLimitStore local;
    /** Guarded by itself: the local store's handle of every key bound. */
    private final Map<CountKey, Object> localHandles = new IdentityHashMap<>();
    private final ConcurrentHashMap<RateLimitRequest, RateLimitRequest> twins = new ConcurrentHashMap<>();
    private final Set<RateLimitRequest> twinSet = ConcurrentHashMap.newKeySet();

    /**
     * @param onFailure            the policy: only {@code local} keeps a store
     * @param maxTrackedPartitions the local store's size
     * @param clock                the engine's clock, in nanoseconds, for the local store
     */
    PolicyDecisions(OnFailure onFailure, int maxTrackedPartitions, LongSupplier clock) {
        this.local = onFailure == OnFailure.LOCAL ? new InProcessRateLimitStore(maxTrackedPartitions, clock) : null;
    }

    /** Binds the key to the local store too, when there is one, so that an outage finds it bound. */
    void bind(CountKey key) {
        if (local != null) {
            synchronized (localHandles) {
                localHandles.put(key, local.bind(key));
            }
        }
    }

    /** {@code allow}: every limit of the request uncounted. */
    RateLimitDecision allow(String partition, RateLimitRequest request, int multiple) {
        RateLimitRequest twin = twin(request);
        Outcome[] outcomes = new Outcome[twin.size()];
        for (int i = 0; i < outcomes.length; i++) {
            outcomes[i] = Outcome.uncounted(twin.policy(i));
        }
        return RateLimitDecision.ofArray(partition, twin, multiple, outcomes);
    }

    /** {@code local}: the in-process store's decision. Requires the policy {@code local}. */
    RateLimitDecision local(String partition, RateLimitRequest request, int multiple) {
        return local.decide(partition, twin(request), multiple);
    }

    /**
     * Gives back what a decision made here spent (only the local store's holds anything).
     *
     * @return false when the store made the decision: nothing of it is here
     */
    boolean giveBack(RateLimitDecision decision) {
        if (!twinSet.contains(decision.request())) {
            return false;
        }
        if (local != null) {
            local.giveBack(decision);
        }
        return true;
    }

    private RateLimitRequest twin(RateLimitRequest request) {
        RateLimitRequest twin = twins.get(request);
        if (twin != null) {
            return twin;
        }
        return twins.computeIfAbsent(request, r -> {
            RateLimitRequest.Builder builder = RateLimitRequest.builder();
            for (int i = 0; i < r.size(); i++) {
                Object handle;
                if (local == null) {
                    handle = r.handle(i);
                } else {
                    synchronized (localHandles) {
                        handle = localHandles.computeIfAbsent(r.key(i), local::bind);
                    }
                }
                builder.add(handle, r.key(i), r.policy(i), r.cost(i), r.kind(i));
            }
            RateLimitRequest made = builder.build();
            twinSet.add(made);
            return made;
        });
    }
}
