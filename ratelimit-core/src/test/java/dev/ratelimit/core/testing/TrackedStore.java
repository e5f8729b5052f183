package dev.ratelimit.core.testing;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store as the engine sees it, with what reaches it tracked on the way: the calls that decide, and every give-back's
 * stage, so that a test knows whether a request reached the store, and can wait until the give-backs the engine sends
 * without waiting (a success of a limit that counts only failures, a refused request's) have landed. Everything else is
 * the delegate's, announcements included.
 *
 * <p>Thread-safe: the counter is atomic and the stages are kept in a concurrent list.
 */
public final class TrackedStore implements RateLimitStore {

    private final RateLimitStore delegate;
    private final AtomicInteger acquires = new AtomicInteger();
    private final List<CompletableFuture<Void>> releases = new CopyOnWriteArrayList<>();

    public TrackedStore(RateLimitStore delegate) {
        this.delegate = delegate;
    }

    /** How many calls to decide reached the store so far. */
    public int acquires() {
        return acquires.get();
    }

    /** How many give-backs reached the store so far. */
    public int releases() {
        return releases.size();
    }

    /** Returns once every give-back sent so far has completed; fails after {@code seconds}, or when one failed. */
    public void awaitReleases(long seconds) throws Exception {
        CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(seconds, TimeUnit.SECONDS);
    }

    @Override
    public Object bind(CountKey key) {
        return delegate.bind(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        acquires.incrementAndGet();
        return delegate.acquire(partition, request, multiple);
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        CompletableFuture<Void> released = delegate.release(decision).toCompletableFuture();
        releases.add(released);
        return released;
    }

    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        return delegate.inspect(partition, request);
    }

    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        return delegate.restart(partition, request);
    }

    @Override
    public String storeName() {
        return delegate.storeName();
    }

    @Override
    public boolean unreachable(Throwable failure) {
        return delegate.unreachable(failure);
    }

    @Override
    public boolean announceTo(CountListener listener) {
        return delegate.announceTo(listener);
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
