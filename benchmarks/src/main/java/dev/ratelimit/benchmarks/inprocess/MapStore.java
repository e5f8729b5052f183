package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.CountCall;
import dev.ratelimit.core.store.CountSequence;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A shared store's stand-in in this JVM: counts as bytes in a map, the core's arithmetic ({@link CountCall}), answered
 * in a completed stage but not "at once", so the engine guards it as it guards Redis (timeouts, refusals remembered,
 * slices). It announces (nothing ever needs to be: one instance), and slices when asked to: what a sliced partition
 * decided at home costs, without a network in the figure.
 */
final class MapStore implements RateLimitStore {

    private final ConcurrentHashMap<String, byte[]> counts = new ConcurrentHashMap<>();
    private final boolean slices;

    MapStore(boolean slices) {
        this.slices = slices;
    }

    @Override
    public Object bind(CountKey key) {
        return key + "|";
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        return CompletableFuture.completedFuture(
                CountSequence.decide(partition, request, multiple, (i, call) -> run(key(partition, request, i), call)));
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        CountSequence.release(decision, (i, call) -> run(key(decision.partition(), decision.request(), i), call));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision, int multiple) {
        CountSequence.release(decision, multiple, (i, call) -> run(key(decision.partition(), decision.request(), i), call));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean slices() {
        return slices;
    }

    @Override
    public boolean announceTo(CountListener listener) {
        listener.anyMayHaveGained();
        return true;
    }

    @Override
    public String storeName() {
        return "map";
    }

    private CountCall.Reply run(String key, CountCall call) {
        CountCall.Reply[] reply = new CountCall.Reply[1];
        counts.compute(key, (k, stored) -> {
            CountCall.Applied applied = call.apply(stored, System.nanoTime());
            reply[0] = applied.reply();
            return applied.write() ? applied.stored() : stored;
        });
        return reply[0];
    }

    private static String key(String partition, RateLimitRequest request, int i) {
        return (String) request.handle(i) + request.key(i).partition(partition);
    }
}
