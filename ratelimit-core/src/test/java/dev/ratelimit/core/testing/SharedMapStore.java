package dev.ratelimit.core.testing;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.CountCall;
import dev.ratelimit.core.store.CountSequence;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A shared store of the core's own arithmetic in one map, for tests of what instances sharing a store do: each
 * {@link #instance()} is the store one application instance would have (it does not answer at once, so the engine
 * guards it as it guards Redis); every restart is announced to every instance, as the slices contract asks, and so is
 * every give-back to a count that refused since its last announcement (what the arithmetic's reply says); calls to the
 * map are counted. Thread-safe.
 */
public final class SharedMapStore {

    private final ConcurrentHashMap<String, byte[]> counts = new ConcurrentHashMap<>();
    private final List<RateLimitStore.CountListener> listeners = new CopyOnWriteArrayList<>();
    private final LongSupplier clock;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong acquires = new AtomicLong();
    private final List<Integer> multiples = new CopyOnWriteArrayList<>();

    /** @param clock the clock of every count, nanoseconds */
    public SharedMapStore(LongSupplier clock) {
        this.clock = clock;
    }

    /** Calls that reached the map so far: decisions, give-backs, restarts. */
    public long calls() {
        return calls.get();
    }

    /** Acquires that reached the map so far (a slice's is one). */
    public long acquires() {
        return acquires.get();
    }

    /** The multiple of every acquire so far, in order: 1 for a request decided exactly, k for a slice of k. */
    public List<Integer> multiples() {
        return List.copyOf(multiples);
    }

    /** The store of one more instance. */
    public RateLimitStore instance() {
        return new Instance();
    }

    /** Reads the count of the request's first limit in {@code partition}, as the admin API would. */
    public CountState inspect(String partition, RateLimitRequest request) {
        return run(key(partition, request, 0), CountCall.inspect(request)).countState(request.policy(0));
    }

    private CountCall.Reply run(String key, CountCall call) {
        CountCall.Reply[] reply = new CountCall.Reply[1];
        counts.compute(key, (k, stored) -> {
            CountCall.Applied applied = call.apply(stored, clock.getAsLong());
            reply[0] = applied.reply();
            return applied.write() ? applied.stored() : stored;
        });
        return reply[0];
    }

    /** {@link #run} on limit {@code i}'s count, announced when the reply says so. */
    private CountCall.Reply run(String partition, RateLimitRequest request, int i, CountCall call) {
        CountCall.Reply reply = run(key(partition, request, i), call);
        if (reply.announce()) {
            CountKey key = request.key(i);
            listeners.forEach(l -> l.gained(key.name(), key.plan(), key.partition(partition)));
        }
        return reply;
    }

    private static String key(String partition, RateLimitRequest request, int i) {
        CountKey key = request.key(i);
        return key + "|" + key.partition(partition);
    }

    /** One instance's store on the shared map. */
    private final class Instance implements RateLimitStore {

        private volatile CountListener own;

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            calls.incrementAndGet();
            acquires.incrementAndGet();
            multiples.add(multiple);
            return CompletableFuture.completedFuture(CountSequence.decide(partition, request, multiple,
                    (i, call) -> run(partition, request, i, call)));
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            calls.incrementAndGet();
            CountSequence.release(decision, (i, call) -> run(decision.partition(), decision.request(), i, call));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision, int multiple) {
            calls.incrementAndGet();
            CountSequence.release(decision, multiple, (i, call) -> run(decision.partition(), decision.request(), i, call));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean slices() {
            return true;
        }

        @Override
        public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
            return CompletableFuture.completedFuture(SharedMapStore.this.inspect(partition, request));
        }

        @Override
        public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
            calls.incrementAndGet();
            run(key(partition, request, 0), CountCall.restart());
            CountKey key = request.key(0);
            listeners.forEach(l -> l.gained(key.name(), key.plan(), key.partition(partition)));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean announceTo(CountListener listener) {
            own = listener;
            listeners.add(listener);
            listener.anyMayHaveGained();
            return true;
        }

        /** The instance dies: it hears nothing more. */
        void close() {
            if (own != null) {
                listeners.remove(own);
            }
        }

        @Override
        public String storeName() {
            return "shared-map";
        }
    }
}
