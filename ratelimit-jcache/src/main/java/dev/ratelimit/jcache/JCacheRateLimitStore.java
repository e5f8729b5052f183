package dev.ratelimit.jcache;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.jcache.internal.CacheKeys;
import dev.ratelimit.jcache.internal.CallThreads;
import dev.ratelimit.jcache.internal.CountCall;
import dev.ratelimit.jcache.internal.CountProcessor;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/**
 * Counts in a JCache (JSR-107) cache, so that every instance of an application spends from one shared count, on the
 * data grid the runtime already has (Payara's Hazelcast; Hazelcast, Infinispan or another provider elsewhere), with
 * the semantics of the in-process store: every algorithm, any number of permits, debt, shadow limits, live values,
 * limits that wait for their permits and counts per application, to the microsecond (this store's resolution).
 *
 * <p>One count is one cache entry: a string key ({@code name[/plan]|partition}) and a value of a few dozen bytes
 * that the grid keeps without the library's classes. One call to a count is one {@code Cache.invoke} with an entry
 * processor of this library, which a grid such as Hazelcast runs on the member that owns the key: one hop, atomic
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
 * <p>JCache calls block until the grid answers, so the store makes them on threads of its own ({@link
 * Builder#executor}) and completes the stage there: a request never blocks on the grid, and the engine's timeout and
 * failure policy apply as to any remote store. Thread-safe: every field is final but the mode, which only ever turns
 * to compare-and-set.
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
    /** How often the parts of a request may move to a later instant before it gives up: in practice once at most. */
    static final int MOST_MOVES = 8;
    /** Keys the start-up probe tries, so that it reaches (very likely) every member of a small cluster. */
    static final int PROBES = 32;
    /** In auto mode, how often compare-and-set tries whether the processor runs everywhere again. */
    static final int PROBE_AGAIN_SECONDS = 60;
    private static final long PROBE_AGAIN_NANOS = PROBE_AGAIN_SECONDS * 1_000_000_000L;

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.jcache");
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long MICROS_PER_STEP_SECOND = 125_000L;
    private static final State[] STATES = {State.SPENT, State.UNSPENT, State.REFUSED};

    private final Cache<String, byte[]> cache;
    private final Executor executor;
    private final ExecutorService ownExecutor;
    private final LongSupplier testClock;
    private final long origin;
    private final boolean auto;
    private final int casAttempts;
    private final ReentrantLock[] stripes;
    private final long expiryMicros;
    private final String expiry;
    private final Set<String> warnedWindows = ConcurrentHashMap.newKeySet();
    private final Consumer<String> announcements;
    /** In auto mode while in compare-and-set: when the processor is tried again ({@code System.nanoTime}). */
    private final AtomicLong nextProbe = new AtomicLong();
    private volatile boolean processor;
    private volatile String modeText;

    private JCacheRateLimitStore(Builder b) {
        this.cache = b.cache;
        this.testClock = b.nanoClock;
        this.origin = testClock == null ? 0 : testClock.getAsLong();
        this.auto = b.mode == Mode.AUTO;
        this.casAttempts = b.casAttempts;
        this.announcements = b.announcements;
        this.stripes = new ReentrantLock[64];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
        long[] horizon = new long[1];
        this.expiry = expiryOf(cache, horizon);
        this.expiryMicros = horizon[0];
        if (b.executor != null) {
            this.executor = b.executor;
            this.ownExecutor = null;
        } else {
            this.ownExecutor = CallThreads.pool(b.threads, QUEUE);
            this.executor = ownExecutor;
        }
        switch (b.mode) {
            case PROCESSOR -> {
                processor = true;
                modeText = "entry processor";
            }
            case COMPARE_AND_SET -> {
                checkCompareAndSet();
                processor = false;
                modeText = "compare-and-set";
            }
            default -> detect();
        }
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
        return new Bound(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        return submit(() -> decideHere(partition, request, multiple));
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        RateLimitRequest request = decision.request();
        boolean any = false;
        for (int i = 0; i < decision.size(); i++) {
            any |= givesBack(decision, i);
        }
        if (!any) {
            return CompletableFuture.completedFuture(null);
        }
        return submit(() -> {
            long now = testNow();
            for (int i = 0; i < decision.size(); i++) {
                if (givesBack(decision, i)) {
                    String key = key(decision.partition(), request, i);
                    long[] reply = run(key, CountCall.release(decision.outcome(i).receipt(), decision.permits(i), now));
                    announceIf(reply[1], key);
                }
            }
            return null;
        });
    }

    /** Reads the count of the request's first limit, as a request would find it, spending and writing nothing. */
    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        return submit(() -> {
            RateLimitPolicy policy = request.policy(0);
            long[] reply = run(key(partition, request, 0), CountCall.inspect(algorithm(policy), request.tag(0),
                    policy.windowSeconds(), policy.permitLimit(), size(policy), testNow()));
            return new CountState(policy, (int) reply[0], reply[1] < 0 ? -1 : reply[1] * NANOS_PER_MICRO, reply[2]);
        });
    }

    /** Removes the count's entry: every instance finds it missing, as new. */
    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        return submit(() -> {
            String key = key(partition, request, 0);
            byte[] old = cache.getAndRemove(key);
            if (old != null && old.length > 2 && (old[2] & 1) != 0) {
                announcements.accept(key); // it had refused: whoever it refused may come back now
            }
            return null;
        });
    }

    @Override
    public String storeName() {
        return "jcache";
    }

    /** The mode calls run in now: {@link Mode#PROCESSOR} or {@link Mode#COMPARE_AND_SET}. */
    public Mode mode() {
        return processor ? Mode.PROCESSOR : Mode.COMPARE_AND_SET;
    }

    /** Ends the store's own threads (not the cache: it belongs to the application or the runtime). */
    @Override
    public void close() {
        if (ownExecutor != null) {
            ownExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "JCacheRateLimitStore(cache=" + cache.getName() + ", provider="
                + cache.getCacheManager().getCachingProvider().getClass().getName() + ", mode=" + modeText
                + ", expiry=" + expiry + (testClock == null ? "" : ", manual clock") + ")";
    }

    // ---------------------------------------------------------------------------------------------------------

    private <T> CompletableFuture<T> submit(Supplier<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(work.get());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("ratelimit: " + QUEUE
                    + " calls already wait for the grid (cache " + cache.getName() + ")", e));
        }
        return result;
    }

    /** Decides on the calling thread, blocking until the grid answered. */
    RateLimitDecision decideHere(String partition, RateLimitRequest request, int multiple) {
        checkExpiry(request);
        if (request.size() == 1) {
            Outcome o = call(key(partition, request, 0), request, multiple, 0, true, 0, RateLimitDecision.NO_RECEIPT);
            return RateLimitDecision.of(partition, request, multiple, o);
        }
        return new Sequence(partition, request, multiple).decide();
    }

    /**
     * One request of several limits, one count at a time: see the class comment. Waiting limits first, as they
     * set the instant the others go; then the others, each in the order of its key's id.
     */
    private final class Sequence {
        private final String partition;
        private final RateLimitRequest request;
        private final int multiple;
        private final int n;
        private final int[] order;
        private final String[] keys;
        private final Outcome[] outcomes;
        private long floor; // microseconds from now when the call goes
        private int moves;

        Sequence(String partition, RateLimitRequest request, int multiple) {
            this.partition = partition;
            this.request = request;
            this.multiple = multiple;
            this.n = request.size();
            this.keys = new String[n];
            this.outcomes = new Outcome[n];
            this.order = new int[n];
            int k = 0;
            for (int pass = 0; pass < 2; pass++) {
                for (int x = 0; x < n; x++) {
                    int i = request.lockOrder(x);
                    boolean waits = request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) > 0;
                    if (waits == (pass == 0)) {
                        order[k++] = i;
                    }
                }
            }
        }

        RateLimitDecision decide() {
            for (int k = 0; k < n; k++) {
                int i = order[k];
                keys[i] = key(partition, request, i);
                Outcome o = call(keys[i], request, multiple, i, true, floor, RateLimitDecision.NO_RECEIPT);
                outcomes[i] = o;
                if (refuses(i, o)) {
                    return refused(k + 1);
                }
                if (!settle(k)) {
                    return refused(k + 1);
                }
            }
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
        }

        /**
         * Brings the enforced limits decided so far (up to {@code order[last]}) to one instant: a limit that goes
         * later than the others moves their permits to its instant, and so on until all agree.
         *
         * @return false when one of them cannot go at the later instant (it refused, giving its permits back)
         */
        private boolean settle(int last) {
            boolean moved = true;
            while (moved) {
                moved = false;
                for (int k = 0; k <= last; k++) {
                    int i = order[k];
                    if (request.kind(i) == Kind.ACQUIRE && outcomes[i].spent()) {
                        floor = Math.max(floor, outcomes[i].waitNanos() / NANOS_PER_MICRO);
                    }
                }
                for (int k = 0; k <= last; k++) {
                    int i = order[k];
                    Outcome o = outcomes[i];
                    if (request.kind(i) != Kind.ACQUIRE || !o.spent() || o.waitNanos() / NANOS_PER_MICRO == floor) {
                        continue;
                    }
                    if (++moves > MOST_MOVES) {
                        giveUp(last);
                        return false;
                    }
                    Outcome again = call(keys[i], request, multiple, i, true, floor, o.receipt());
                    outcomes[i] = again;
                    if (refuses(i, again)) {
                        return false;
                    }
                    moved = true;
                }
            }
            return true;
        }

        /**
         * The request is refused: what the limits decided so far spent goes back (each reporting what a refused
         * request finds), and the limits not yet decided are decided without spending.
         */
        private RateLimitDecision refused(int decided) {
            for (int k = 0; k < n; k++) {
                int i = order[k];
                if (k >= decided) {
                    keys[i] = key(partition, request, i);
                    outcomes[i] = call(keys[i], request, multiple, i, false, 0, RateLimitDecision.NO_RECEIPT);
                } else if (outcomes[i].spent()) {
                    outcomes[i] = call(keys[i], request, multiple, i, false, 0, outcomes[i].receipt());
                }
            }
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
        }

        /**
         * Others kept reserving between the calls: the waiting limits refuse, saying when the request would have
         * gone (then {@link #refused} gives everything back).
         */
        private void giveUp(int last) {
            for (int k = 0; k <= last; k++) {
                int i = order[k];
                if (outcomes[i].spent()) {
                    outcomes[i] = call(keys[i], request, multiple, i, false, 0, outcomes[i].receipt());
                }
            }
            for (int k = 0; k <= last; k++) {
                int i = order[k];
                if (request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) > 0 && outcomes[i].state() == State.UNSPENT) {
                    Outcome o = outcomes[i];
                    outcomes[i] = new Outcome(o.policy(), State.REFUSED, 0, o.resetNanos(), floor * NANOS_PER_MICRO,
                            RateLimitDecision.NO_RECEIPT);
                }
            }
        }

        private boolean refuses(int i, Outcome o) {
            return o.state() == State.REFUSED && request.kind(i) == Kind.ACQUIRE;
        }
    }

    /** One limit of a request: one call to its count. */
    private Outcome call(String key, RateLimitRequest request, int multiple, int i, boolean spend, long floorMicros,
                         long giveBack) {
        RateLimitPolicy policy = request.policy(i);
        long permits = (long) request.cost(i) * multiple;
        long[] reply = run(key, CountCall.decide(spend, algorithm(policy), kind(request.kind(i)), request.tag(i),
                policy.windowSeconds(), policy.permitLimit(), size(policy), permits,
                request.maxWaitNanos(i) / NANOS_PER_MICRO, floorMicros, giveBack, testNow()));
        announceIf(reply[6], key);
        long reset = reply[2];
        return new Outcome(policy, STATES[(int) reply[0]], (int) reply[1], reset < 0 ? -1 : reset * NANOS_PER_MICRO,
                reply[3] * NANOS_PER_MICRO, reply[4] == CountCall.NO_RECEIPT ? RateLimitDecision.NO_RECEIPT : reply[4],
                reply[5] * NANOS_PER_MICRO);
    }

    /** Runs a call on a count, by the mode of the moment. */
    private long[] run(String key, CountCall call) {
        if (!processor && auto) {
            probeAgainIfDue();
        }
        if (processor) {
            try {
                return cache.invoke(key, CountProcessor.INSTANCE, (Object) call.arguments());
            } catch (RuntimeException e) {
                if (!auto || !classNotLoadable(e)) {
                    throw e;
                }
                // the call did not run: its class could not be loaded where the key lives (yet: a member that joined
                // before its application was deployed); this call, and the next ones for a while, by compare-and-set
                turnToCompareAndSet(e);
            }
        }
        return compareAndSet(key, call);
    }

    private long[] compareAndSet(String key, CountCall call) {
        ReentrantLock lock = stripes[(key.hashCode() & 0x7fff_ffff) % stripes.length];
        lock.lock(); // callers of this instance take turns: only other instances make a compare-and-set fail
        try {
            CountCall.Result result = new CountCall.Result();
            for (int attempt = 0; attempt < casAttempts; attempt++) {
                byte[] old = cache.get(key);
                long now = call.now() == CountCall.OWNERS_CLOCK ? CountCall.clock() : call.now();
                long[] reply = call.apply(old, now, result);
                if (!result.write) {
                    return reply;
                }
                boolean written;
                if (old == null) {
                    written = result.value == null || cache.putIfAbsent(key, result.value);
                } else if (result.value == null) {
                    written = cache.remove(key, old);
                } else {
                    written = cache.replace(key, old, result.value);
                }
                if (written) {
                    return reply;
                }
                Thread.onSpinWait();
            }
            throw new IllegalStateException("ratelimit: the count " + key + " in cache " + cache.getName()
                    + " changed under " + casAttempts + " compare-and-set attempts in a row");
        } finally {
            lock.unlock();
        }
    }

    /**
     * Which mode: the processor, if the grid runs it on every probe key (a few keys, which on a small cluster reach
     * every member); else compare-and-set (checked to work with byte-array values), trying the processor again every
     * {@value #PROBE_AGAIN_SECONDS} s: on Payara a member that joins before its application is deployed cannot load
     * the class for a few seconds.
     */
    private void detect() {
        RuntimeException failed = probe();
        if (failed == null) {
            processor = true;
            modeText = "entry processor (auto)";
            return;
        }
        checkCompareAndSet();
        processor = false;
        nextProbe.set(System.nanoTime() + PROBE_AGAIN_NANOS);
        modeText = "compare-and-set (auto: the entry processor could not run where some key lives, " + failed
                + "; tried again every " + PROBE_AGAIN_SECONDS + " s)";
    }

    /** Null when the processor ran on every probe key; else why it did not. */
    private RuntimeException probe() {
        for (int i = 0; i < PROBES; i++) {
            try {
                cache.invoke(CacheKeys.probe(Integer.toString(i)), CountProcessor.INSTANCE, (Object) CountCall.probe().arguments());
            } catch (RuntimeException e) {
                return e;
            }
        }
        return null;
    }

    /** In compare-and-set for now (auto): the processor again, once the probe finds it runs everywhere. */
    private void probeAgainIfDue() {
        long due = nextProbe.get();
        long now = System.nanoTime();
        if (now - due < 0 || !nextProbe.compareAndSet(due, now + PROBE_AGAIN_NANOS)) {
            return;
        }
        if (probe() == null) {
            processor = true;
            modeText = "entry processor (auto)";
            LOG.log(Level.INFO, "ratelimit: the grid of cache " + cache.getName() + " runs " + CountProcessor.class.getName()
                    + " where every probe key lives again: counts are kept by the entry processor");
        }
    }

    private synchronized void turnToCompareAndSet(RuntimeException cause) {
        if (!processor) {
            return;
        }
        checkCompareAndSet();
        processor = false;
        nextProbe.set(System.nanoTime() + PROBE_AGAIN_NANOS);
        modeText = "compare-and-set (auto: a call found " + CountProcessor.class.getName() + " not loadable where its key "
                + "lives; tried again every " + PROBE_AGAIN_SECONDS + " s)";
        LOG.log(Level.WARNING, "ratelimit: the grid of cache " + cache.getName() + " cannot load "
                + CountProcessor.class.getName() + " where a key lives; counts are kept by compare-and-set until it can "
                + "(tried again every " + PROBE_AGAIN_SECONDS + " s)", cause);
    }

    /** Compare-and-set needs a cache that compares values by content: a cache that compares references fails here. */
    private void checkCompareAndSet() {
        String key = CacheKeys.probe(UUID.randomUUID().toString());
        try {
            cache.put(key, new byte[] {1, 2, 3});
            boolean replaced = cache.replace(key, new byte[] {1, 2, 3}, new byte[] {4});
            if (!replaced) {
                throw new IllegalStateException("ratelimit: cache " + cache.getName() + " ("
                        + cache.getCacheManager().getCachingProvider().getClass().getName() + ") does not compare "
                        + "byte-array values by content, so compare-and-set cannot keep counts in it; use "
                        + "ratelimit.jcache.mode=processor with a grid that can load the library's classes");
            }
        } finally {
            cache.remove(key);
        }
    }

    static boolean classNotLoadable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ClassNotFoundException || t instanceof NoClassDefFoundError
                    || t.getClass().getName().endsWith("SerializationException")) {
                return true;
            }
            String message = t.getMessage();
            // Hazelcast on Payara: a processor whose class the owner could not load arrives there as null
            if (message != null && (message.contains("ClassNotFoundException") || message.contains(CountProcessor.class.getName())
                    || (t instanceof NullPointerException && message.contains("\"entryProcessor\" is null")))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The cache's expiry as text, and in {@code horizon[0]} how long after its last write a count is kept
     * (microseconds; {@code Long.MAX_VALUE} when never removed).
     */
    private static String expiryOf(Cache<String, byte[]> cache, long[] horizon) {
        horizon[0] = Long.MAX_VALUE;
        ExpiryPolicy policy;
        try {
            CompleteConfiguration<?, ?> configuration = cache.getConfiguration(CompleteConfiguration.class);
            policy = configuration.getExpiryPolicyFactory() == null ? null : configuration.getExpiryPolicyFactory().create();
        } catch (RuntimeException e) {
            return "unknown (" + e + ")";
        }
        Duration created = policy == null ? Duration.ETERNAL : policy.getExpiryForCreation();
        if (created == null || created.isEternal()) {
            LOG.log(Level.WARNING, "ratelimit: cache " + cache.getName() + " keeps its entries for ever: counts that "
                    + "nobody spends from again are never removed (give it an expiry policy refreshed on write, e.g. "
                    + "ModifiedExpiryPolicy, longer than the longest window and one step)");
            return "eternal";
        }
        Duration updated = policy.getExpiryForUpdate();
        if (updated == null) {
            LOG.log(Level.WARNING, "ratelimit: cache " + cache.getName() + " expires entries " + created
                    + " after they are created, whatever writes them later: a count in use may be removed and start "
                    + "afresh (give it an expiry policy refreshed on write, e.g. ModifiedExpiryPolicy)");
            horizon[0] = 0;
            return "not refreshed on write";
        }
        horizon[0] = updated.isEternal() ? Long.MAX_VALUE : updated.getTimeUnit().toMicros(updated.getDurationAmount());
        return updated.isEternal() ? "eternal" : updated.getTimeUnit().toSeconds(updated.getDurationAmount())
                + " s after the last write";
    }

    /** Warns once per limit whose counts may hold permits longer than the cache keeps an entry after its last write. */
    private void checkExpiry(RateLimitRequest request) {
        for (int i = 0; i < request.size(); i++) {
            RateLimitPolicy policy = request.policy(i);
            long needed = policy.windowSeconds() * (MICROS_PER_STEP_SECOND * 9) + request.maxWaitNanos(i) / NANOS_PER_MICRO;
            if (needed > expiryMicros && warnedWindows.add(policy.name() + "/" + policy.windowSeconds())) {
                LOG.log(Level.WARNING, "ratelimit: counts of limit " + policy + " hold permits up to "
                        + (needed + 999_999) / 1_000_000 + " s after they are spent, but cache " + cache.getName()
                        + " removes an entry " + expiry + ": a count nobody spends from for that long starts afresh "
                        + "too early (raise ratelimit.jcache.expiry-seconds, or the cache's expiry)");
            }
        }
    }

    private void announceIf(long flag, String key) {
        if (flag != 0) {
            announcements.accept(key);
        }
    }

    private static boolean givesBack(RateLimitDecision decision, int i) {
        Outcome outcome = decision.outcome(i);
        return outcome.state() == State.SPENT && decision.request().kind(i) != Kind.CHARGE
                && outcome.receipt() != RateLimitDecision.NO_RECEIPT;
    }

    private String key(String partition, RateLimitRequest request, int i) {
        Object handle = request.handle(i);
        Bound bound = handle instanceof Bound b ? b : new Bound(request.key(i));
        return bound.perApplication ? bound.applicationKey : bound.prefix.concat(partition);
    }

    /** The test clock's reading in microseconds since the store was built; {@link CountCall#OWNERS_CLOCK} without one. */
    private long testNow() {
        return testClock == null ? CountCall.OWNERS_CLOCK : Math.floorDiv(testClock.getAsLong() - origin, NANOS_PER_MICRO);
    }

    private static byte algorithm(RateLimitPolicy policy) {
        return switch (policy.algorithm()) {
            case SLIDING_WINDOW -> CountCall.SLIDING;
            case STRICT_WINDOW -> CountCall.STRICT;
            case TOKEN_BUCKET -> CountCall.BUCKET;
        };
    }

    private static byte kind(Kind kind) {
        return switch (kind) {
            case ACQUIRE -> CountCall.KIND_ACQUIRE;
            case SHADOW -> CountCall.KIND_SHADOW;
            case CHARGE -> CountCall.KIND_CHARGE;
        };
    }

    /** The step of a window (an eighth), or a bucket's interval ({@code ceil(window / limit)}), in microseconds. */
    private static long size(RateLimitPolicy policy) {
        return policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET
                ? (policy.windowSeconds() * 1_000_000L + policy.permitLimit() - 1) / policy.permitLimit()
                : policy.windowSeconds() * MICROS_PER_STEP_SECOND;
    }

    /** The store's handle on the counts of one {@link CountKey}: the start of their cache keys. Immutable. */
    private static final class Bound {
        final String prefix;
        final boolean perApplication;
        final String applicationKey;

        Bound(CountKey key) {
            this.prefix = CacheKeys.prefix(key);
            this.perApplication = key.perApplication();
            this.applicationKey = prefix + CountKey.APPLICATION;
        }

        @Override
        public String toString() {
            return "JCacheRateLimitStore.Bound[" + prefix + "]";
        }
    }

    /** Options of a {@link JCacheRateLimitStore}; not thread-safe. */
    public static final class Builder {

        private final Cache<String, byte[]> cache;
        private Mode mode = Mode.AUTO;
        private int threads = DEFAULT_THREADS;
        private Executor executor;
        private int casAttempts = DEFAULT_CAS_ATTEMPTS;
        private LongSupplier nanoClock;
        private Consumer<String> announcements = key -> { };

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
         * For tests only: take time from this monotonic nanosecond clock (a manual clock, read at the store's
         * resolution of a microsecond) instead of the clock of the member that owns a count.
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
            return this;
        }

        /**
         * Told the cache key of a count that had refused and has gained permits since (a give-back, or a restart):
         * an instance that remembers that count's refusal may forget it. Default: nobody is told.
         */
        public Builder announcements(Consumer<String> announcements) {
            this.announcements = Objects.requireNonNull(announcements, "announcements");
            return this;
        }

        /** The store; in {@link Mode#AUTO}, finds out which mode the grid allows (a few calls). */
        public JCacheRateLimitStore build() {
            return new JCacheRateLimitStore(this);
        }
    }
}
