package dev.ratelimit.jcache;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.CountCall;
import dev.ratelimit.core.store.CountSequence;
import dev.ratelimit.jcache.internal.Announcements;
import dev.ratelimit.jcache.internal.CacheKeys;
import dev.ratelimit.jcache.internal.CallThreads;
import dev.ratelimit.jcache.internal.CountProcessor;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.expiry.Duration;

/**
 * Counts in a JCache (JSR-107) cache, so that every instance of an application spends from one shared count, on the
 * data grid the runtime already has (Payara's Hazelcast; Hazelcast, Infinispan or another provider elsewhere), with
 * the semantics of the in-process store: every algorithm, any number of permits, debt, shadow limits, live values,
 * limits that wait for their permits and counts per application, to the nanosecond. It keeps no arithmetic of its own:
 * every call on a count runs the core's ({@link CountCall}), and a request of several limits is decided as
 * {@link CountSequence} says.
 *
 * <p>One count is one cache entry: a string key ({@code name[/plan]|partition}) and a value of a few dozen bytes
 * (the core's stored form of a count) that the grid keeps without the library's classes. One call to a count is one
 * {@code Cache.invoke} with an entry processor of this library, which runs the core's arithmetic there: which a grid such as Hazelcast runs on the member that owns the key: one hop, atomic
 * for that key, on that member's clock, so that instances never disagree on time. A count that comes to hold
 * nothing is removed (that loses nothing: a missing count is a new one); the cache's expiry policy, refreshed on
 * write, removes the counts nobody touches again.
 *
 * <p>Where the grid cannot run the processor (its class is not loadable where the key lives, e.g. a cluster the
 * application joins as a client), {@link Mode#COMPARE_AND_SET} does the same on the same bytes with
 * {@code get} and {@code replace(key, old, new)}, retried when another caller wrote in between (its time is then
 * the caller's clock). {@link Mode#AUTO} finds out when the store is built; a call that then finds the processor
 * not loadable (a Payara member that joined before its application was deployed) goes by compare-and-set, and so do
 * the next ones until a probe, once a minute, finds the processor runs everywhere again. Both modes work on the same
 * bytes, atomically per key, so instances in different modes share counts. The mode is in {@link #toString()}, the
 * start-up line.
 *
 * <p>Several limits of one request: JCache has no atomic call over several keys, so each count is decided in its
 * own call, in one fixed order per request; when one refuses, the permits the others took are given back before the
 * request is answered. Never more is admitted than a limit allows, but a concurrent request may briefly see a permit
 * taken that is then given back, and be refused by it (the in-process store decides several limits atomically; a
 * request of one limit, the common case, is exact here too). Limits that wait go together at the latest instant:
 * the others' permits move there.
 *
 * <p>A count that refuses an enforced limit is flagged in its bytes; a give-back or a restart of a flagged count
 * clears the flag and is announced to every instance ({@link #announceTo}), so that an engine can answer a refusal
 * itself until it runs out and hear when another instance's give-back or reset ends it early. Only on Hazelcast (see
 * {@link #announceTo}); elsewhere every request asks the grid.
 *
 * <p>JCache calls block until the grid answers, so the store makes them on threads of its own ({@link
 * Builder#executor}) and completes the stage there: a request never blocks on the grid, and the engine's timeout and
 * failure policy apply as to any remote store. Thread-safe: every field is final; the mode of the moment is volatile.
 *
 * <p>The parts, each a class of its own in this package: which mode, and one call in it
 * ({@code ProcessorOrCompareAndSet}); the cache keys of a bound key's counts ({@code CountKeyPrefix}); what the cache's
 * expiry keeps ({@code CacheExpiry}); the announcements ({@code internal.Announcements}); this class, the store's
 * contract on them.
 */
public final class JCacheRateLimitStore implements RateLimitStore, AutoCloseable {

    /** How calls reach the counts. */
    public enum Mode {
        /**
         * An entry processor where the grid can run it, else compare-and-set: found out at start-up, and while in
         * compare-and-set tried again every minute.
         */
        AUTO,
        /** {@code Cache.invoke} with the library's entry processor: one hop, atomic per key, the owner's clock. */
        PROCESSOR,
        /** {@code get} then {@code replace}/{@code putIfAbsent}/{@code remove} on the same bytes, retried. */
        COMPARE_AND_SET
    }

    /** Default of {@link Builder#threads}. */
    public static final int DEFAULT_THREADS = 16;
    /** How many calls may wait for a thread before a call is refused at once. */
    static final int QUEUE = 10_000;
    /** Default of {@link Builder#casAttempts}. */
    public static final int DEFAULT_CAS_ATTEMPTS = 64;

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.jcache");

    private final Cache<String, byte[]> cache;
    private final Executor executor;
    private final ExecutorService ownExecutor;
    private final LongSupplier testClock;
    private final long origin;
    private final CacheExpiry expiry;
    /** Null where the store does not announce (a provider other than Hazelcast). */
    private final Announcements announcements;
    private final ProcessorOrCompareAndSet calls;

    private JCacheRateLimitStore(Builder b) {
        this.cache = b.cache;
        this.testClock = b.nanoClock;
        this.origin = testClock == null ? 0 : testClock.getAsLong();
        this.announcements = openAnnouncements(cache);
        this.expiry = CacheExpiry.of(cache);
        if (b.executor != null) {
            this.executor = b.executor;
            this.ownExecutor = null;
        } else {
            this.ownExecutor = CallThreads.pool(b.threads, QUEUE);
            this.executor = ownExecutor;
        }
        this.calls = new ProcessorOrCompareAndSet(cache, b.mode, b.casAttempts);
    }

    /** A builder for a store on {@code cache}, a cache of string keys and byte-array values. */
    public static Builder builder(Cache<String, byte[]> cache) {
        return new Builder(cache);
    }

    /**
     * The cache {@code name} of {@code manager}, created when it does not exist yet: string keys, byte-array values,
     * stored by value, entries removed {@code expiry} after their last write ({@code ModifiedExpiryPolicy}). An
     * existing cache (configured by the runtime or the grid's own configuration) is taken as it is; a store on it
     * warns when its expiry loses counts or keeps them for ever.
     *
     * @param expiry how long after its last write a count is kept: at least the longest window and one step
     *               (a count holds permits that long after it was last spent from)
     */
    @SuppressWarnings("unchecked")
    public static Cache<String, byte[]> openCache(CacheManager manager, String name, java.time.Duration expiry) {
        Cache<String, byte[]> cache = (Cache<String, byte[]>) (Cache<?, ?>) manager.getCache(name);
        if (cache != null) {
            return cache;
        }
        MutableConfiguration<String, byte[]> configuration = new MutableConfiguration<String, byte[]>()
                .setTypes(String.class, byte[].class)
                .setStoreByValue(true)
                .setExpiryPolicyFactory(ModifiedExpiryPolicy.factoryOf(new Duration(TimeUnit.SECONDS, expiry.toSeconds())));
        try {
            return manager.createCache(name, configuration);
        } catch (CacheException e) {
            cache = (Cache<String, byte[]>) (Cache<?, ?>) manager.getCache(name); // another instance made it meanwhile
            if (cache == null) {
                throw e;
            }
            return cache;
        }
    }

    /** Prepares the start of every cache key of the key's counts. */
    @Override
    public Object bind(CountKey key) {
        return new CountKeyPrefix(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        return submit(() -> {
            expiry.check(request);
            return CountSequence.decide(partition, request, multiple,
                    (i, call) -> run(CountKeyPrefix.key(partition, request, i), call));
        });
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        boolean any = false;
        for (int i = 0; i < decision.size(); i++) {
            any |= CountSequence.givesBack(decision, i);
        }
        if (!any) {
            return CompletableFuture.completedFuture(null);
        }
        RateLimitRequest request = decision.request();
        return submit(() -> {
            CountSequence.release(decision, (i, call) -> run(CountKeyPrefix.key(decision.partition(), request, i), call));
            return null;
        });
    }

    /** Gives back part of a slice: {@code multiple} of the decision's multiple, limit by limit. */
    @Override
    public CompletionStage<Void> release(RateLimitDecision decision, int multiple) {
        if (multiple == decision.multiple()) {
            return release(decision);
        }
        RateLimitRequest request = decision.request();
        return submit(() -> {
            CountSequence.release(decision, multiple,
                    (i, call) -> run(CountKeyPrefix.key(decision.partition(), request, i), call));
            return null;
        });
    }

    /** Gives back part of a decision, and announces every restart where it announces. */
    @Override
    public boolean slices() {
        return true;
    }

    /** Reads the count of the request's first limit, as a request would find it, spending and writing nothing. */
    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        return submit(() -> run(CountKeyPrefix.key(partition, request, 0), CountCall.inspect(request))
                .countState(request.policy(0)));
    }

    /** Removes the count's entry: every instance finds it missing, as new. */
    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        return submit(() -> {
            String key = CountKeyPrefix.key(partition, request, 0);
            if (!run(key, CountCall.restart()).announce()) {
                announce(key); // every restart is announced, also of a count that had not refused: slices drop
            }
            return null;
        });
    }

    @Override
    public String storeName() {
        return "jcache";
    }

    /**
     * {@code putIfAbsent} of the entry {@value CacheKeys#KEY_SECRET_FINGERPRINT} in the cache of counts (no count's key),
     * then the value kept; an instance that finds its own writes it again, so that the cache's expiry (after the last
     * write) keeps it while instances start. Removing the entry lets the next instance to start leave its own.
     */
    @Override
    public CompletionStage<String> keySecretFingerprint(String fingerprint) {
        return submit(() -> {
            byte[] mine = fingerprint.getBytes(StandardCharsets.UTF_8);
            String key = CacheKeys.KEY_SECRET_FINGERPRINT;
            if (cache.putIfAbsent(key, mine)) {
                return fingerprint;
            }
            byte[] kept = cache.get(key);
            if (kept == null) {
                cache.putIfAbsent(key, mine); // expired meanwhile
                return fingerprint;
            }
            if (Arrays.equals(kept, mine)) {
                cache.replace(key, kept, mine); // written again: kept as long again
            }
            return new String(kept, StandardCharsets.UTF_8);
        });
    }

    /**
     * How many announcements were ignored since the store was built: not the key of a count (garbage, forged, another
     * application's text), or longer than any key; 0 where the store does not announce.
     */
    public long malformedAnnouncements() {
        return announcements == null ? 0 : announcements.malformed();
    }

    /** The mode calls run in now: {@link Mode#PROCESSOR} or {@link Mode#COMPARE_AND_SET}. */
    public Mode mode() {
        return calls.processor() ? Mode.PROCESSOR : Mode.COMPARE_AND_SET;
    }

    /**
     * Hears, on this instance, every give-back and restart of a count that refused since its last announcement, made
     * by any instance (this one included), once the change is visible: each is written into the cache of
     * announcements beside the counts ({@code <cache>.announcements}), and a listener of this instance alone (no other
     * member loads a class of the library for it) names the count to {@code listener}. {@code listener} hears that
     * anything may have gained now, once it listens, and whenever an announcement may have been lost: a member joined
     * or left, a split cluster merged, a client reconnected.
     *
     * @return true on Hazelcast (Payara's included), whose listeners hear the writes of every member; false with
     *         another provider, whose listeners may hear only this member's: every request then asks the grid
     */
    @Override
    public boolean announceTo(CountListener listener) {
        if (announcements == null) {
            return false;
        }
        try {
            announcements.listen(listener);
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ratelimit: cannot listen to the announcements of cache " + announcements.cacheName()
                    + ": every refused request asks the grid again", e);
            return false;
        }
    }

    /**
     * True when the grid could not be reached, rather than answering: no answer in time (Hazelcast's operation timeout),
     * the member that owns the count left or the connection to it is lost, this member or client is not running or
     * not connected, or the store's own threads already have {@value #QUEUE} calls waiting for the grid; and, as for any
     * store, a {@code TimeoutException} or an {@code IOException}.
     */
    @Override
    public boolean unreachable(Throwable failure) {
        return ProcessorOrCompareAndSet.notReached(failure) || RateLimitStore.super.unreachable(failure);
    }

    /**
     * Ends the store's own threads and stops listening to announcements (not the cache: it belongs to the application
     * or the runtime).
     */
    @Override
    public void close() {
        if (announcements != null) {
            announcements.close();
        }
        if (ownExecutor != null) {
            ownExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "JCacheRateLimitStore(cache=" + cache.getName() + ", provider="
                + cache.getCacheManager().getCachingProvider().getClass().getName() + ", mode=" + calls.modeText()
                + ", expiry=" + expiry + ", announcements=" + (announcements == null ? "none" : announcements.cacheName())
                + (testClock == null ? "" : ", manual clock") + ")";
    }

    // ---------------------------------------------------------------------------------------------------------

    private <T> CompletableFuture<T> submit(Supplier<T> work) {
        return CallThreads.submit(executor, work, () -> "ratelimit: " + QUEUE + " calls already wait for the grid (cache "
                + cache.getName() + ")");
    }

    /** Runs {@code call} on the count under {@code key}, and announces it when the reply says so. */
    private CountCall.Reply run(String key, CountCall call) {
        CountCall.Reply reply = calls.run(key, call, testNow());
        if (reply.announce()) {
            announce(key);
        }
        return reply;
    }

    private void announce(String key) {
        if (announcements != null) {
            announcements.announce(key);
        }
    }

    /** The announcements of this cache's counts; null where the store does not announce, or cannot (logged). */
    private static Announcements openAnnouncements(Cache<String, byte[]> cache) {
        try {
            return Announcements.open(cache, (name, kept) -> openCache(cache.getCacheManager(), name, kept));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ratelimit: cannot open the cache of announcements beside cache " + cache.getName()
                    + ": every refused request asks the grid again", e);
            return null;
        }
    }

    /** The test clock's reading in nanoseconds since the store was built; {@link CountProcessor#OWNERS_CLOCK} without one. */
    private long testNow() {
        return testClock == null ? CountProcessor.OWNERS_CLOCK : testClock.getAsLong() - origin;
    }

    /** Options of a {@link JCacheRateLimitStore}; not thread-safe. */
    public static final class Builder {

        private final Cache<String, byte[]> cache;
        private Mode mode = Mode.AUTO;
        private int threads = DEFAULT_THREADS;
        private Executor executor;
        private int casAttempts = DEFAULT_CAS_ATTEMPTS;
        private LongSupplier nanoClock;

        private Builder(Cache<String, byte[]> cache) {
            this.cache = Objects.requireNonNull(cache, "cache");
        }

        /** How calls reach the counts. Default {@link Mode#AUTO}. */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** How many threads of its own wait for the grid, 1 or more; default {@value #DEFAULT_THREADS}. */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be >= 1, was " + threads);
            }
            this.threads = threads;
            return this;
        }

        /**
         * Where calls wait for the grid instead of the store's own threads (a managed executor of the runtime; or
         * {@code Runnable::run}, to decide on the caller's thread, which then blocks: benchmarks and tools).
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** In compare-and-set, how often a call is tried before it fails, 1 or more; default {@value #DEFAULT_CAS_ATTEMPTS}. */
        public Builder casAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("casAttempts must be >= 1, was " + attempts);
            }
            this.casAttempts = attempts;
            return this;
        }

        /**
         * For tests only: take time from this monotonic nanosecond clock (a manual clock) instead of the clock of the
         * member that owns a count.
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
            return this;
        }

        /** The store; in {@link Mode#AUTO}, finds out which mode the grid allows (a few calls). */
        public JCacheRateLimitStore build() {
            return new JCacheRateLimitStore(this);
        }
    }
}
