package dev.ratelimit.ownstore;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.CountCall;
import dev.ratelimit.core.store.CountSequence;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A store of one's own, written against the public API alone: the SPI ({@link RateLimitStore}) and the core's count
 * arithmetic ({@link CountCall}, {@link CountSequence}). Its counts are bytes in a map updated key by key with
 * {@code compute}, the way a key-value store with an atomic update per key is used; docs/stores.md ("A store of your
 * own") walks through it. Thread-safe: the map is the only state, and each call on a count runs inside its
 * {@code compute}.
 */
final class MapRateLimitStore implements RateLimitStore {

    private final ConcurrentHashMap<String, byte[]> counts = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    /** @param nanoClock the clock every call on a count reads, nanoseconds ({@code System::nanoTime}) */
    MapRateLimitStore(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** The handle: what every key of this {@link CountKey}'s counts begins with, made once. */
    @Override
    public Object bind(CountKey key) {
        return (key.plan() == null ? key.name() : key.name() + '/' + key.plan()) + '|';
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        return CompletableFuture.completedFuture(
                CountSequence.decide(partition, request, multiple, (i, call) -> run(key(partition, request, i), call)));
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        RateLimitRequest request = decision.request();
        CountSequence.release(decision, (i, call) -> run(key(decision.partition(), request, i), call));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        CountCall.Reply reply = run(key(partition, request, 0), CountCall.inspect(request));
        return CompletableFuture.completedFuture(reply.countState(request.policy(0)));
    }

    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        run(key(partition, request, 0), CountCall.restart());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void clear() {
        counts.clear();
    }

    @Override
    public String storeName() {
        return "map";
    }

    /** Runs {@code call} on the count under {@code key}, atomically: the map's {@code compute}. */
    private CountCall.Reply run(String key, CountCall call) {
        CountCall.Reply[] reply = new CountCall.Reply[1];
        counts.compute(key, (k, stored) -> {
            CountCall.Applied applied = call.apply(stored, nanoClock.getAsLong());
            reply[0] = applied.reply();
            return applied.write() ? applied.stored() : stored; // null removes the count: it holds nothing
        });
        return reply[0];
    }

    /** The key of the count of limit {@code i}: the handle from {@link #bind}, then the partition it is kept under. */
    private static String key(String partition, RateLimitRequest request, int i) {
        return (String) request.handle(i) + request.key(i).partition(partition);
    }
}
