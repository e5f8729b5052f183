package dev.ratelimit.jcache;

import dev.ratelimit.jcache.JCacheRateLimitStore.Mode;
import dev.ratelimit.jcache.internal.CacheKeys;
import dev.ratelimit.core.store.CountCall;
import dev.ratelimit.jcache.internal.CountProcessor;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import javax.cache.Cache;

/**
 * Runs one call on one count (the core's {@link CountCall}) in the mode of the moment: the entry processor, or
 * compare-and-set on the same bytes. Also
 * finds out which mode the grid allows, and tells a failure that means the grid was not reached: see {@link Mode} and
 * the class comment of {@link JCacheRateLimitStore}.
 *
 * <p>Thread-safe. The mode ({@code processor}, {@code modeText}) is volatile: in {@link Mode#AUTO} it turns to
 * compare-and-set under this object's lock, and back to the processor when a probe, at most one at a time (the
 * compare-and-set on {@code nextProbe}), finds it runs everywhere again. A stripe lock makes the callers of this
 * instance take turns on a key in compare-and-set, so that only other instances make a compare-and-set fail.
 */
final class ProcessorOrCompareAndSet {

    /** Keys the start-up probe tries, so that it reaches (very likely) every member of a small cluster. */
    static final int PROBES = 32;
    /** In auto mode, how often compare-and-set tries whether the processor runs everywhere again. */
    static final int PROBE_AGAIN_SECONDS = 60;
    private static final long PROBE_AGAIN_NANOS = PROBE_AGAIN_SECONDS * 1_000_000_000L;
    private static final System.Logger LOG = System.getLogger("dev.ratelimit.jcache");

    /**
     * Hazelcast's failures that mean the grid was not reached (no answer in time, the owner or the connection lost,
     * this member or client not running), by name: the module depends on no provider.
     */
    private static final Set<String> UNREACHABLE = Set.of("com.hazelcast.core.OperationTimeoutException",
            "com.hazelcast.core.MemberLeftException", "com.hazelcast.spi.exception.TargetDisconnectedException",
            "com.hazelcast.spi.exception.TargetNotMemberException",
            "com.hazelcast.core.HazelcastInstanceNotActiveException",
            "com.hazelcast.client.HazelcastClientOfflineException",
            "com.hazelcast.client.HazelcastClientNotActiveException");

    private final Cache<String, byte[]> cache;
    private final boolean auto;
    private final int casAttempts;
    private final ReentrantLock[] stripes;
    /** In auto mode while in compare-and-set: when the processor is tried again ({@code System.nanoTime}). */
    private final AtomicLong nextProbe = new AtomicLong();
    private volatile boolean processor;
    private volatile String modeText;

    /** Calls on {@code cache} in {@code mode}; in {@link Mode#AUTO}, finds out which the grid allows (a few calls). */
    ProcessorOrCompareAndSet(Cache<String, byte[]> cache, Mode mode, int casAttempts) {
        this.cache = cache;
        this.auto = mode == Mode.AUTO;
        this.casAttempts = casAttempts;
        this.stripes = new ReentrantLock[64];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
        switch (mode) {
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

    /** True while calls go by the entry processor. */
    boolean processor() {
        return processor;
    }

    /** The mode, as the start-up line says it. */
    String modeText() {
        return modeText;
    }

    /**
     * Runs a call on a count, by the mode of the moment; blocks until the grid answered.
     *
     * @param now the caller's clock reading in nanoseconds, or {@link CountProcessor#OWNERS_CLOCK}
     */
    CountCall.Reply run(String key, CountCall call, long now) {
        if (!processor && auto) {
            probeAgainIfDue();
        }
        if (processor) {
            try {
                return CountCall.Reply.ofLongs(cache.invoke(key, CountProcessor.INSTANCE, call.toLongs(), now));
            } catch (RuntimeException e) {
                if (!auto || !classNotLoadable(e)) {
                    throw e;
                }
                // the call did not run: its class could not be loaded where the key lives (yet: a member that joined
                // before its application was deployed); this call, and the next ones for a while, by compare-and-set
                turnToCompareAndSet(e);
            }
        }
        return compareAndSet(key, call, now);
    }

    private CountCall.Reply compareAndSet(String key, CountCall call, long now) {
        ReentrantLock lock = stripes[(key.hashCode() & 0x7fff_ffff) % stripes.length];
        lock.lock(); // callers of this instance take turns: only other instances make a compare-and-set fail
        try {
            for (int attempt = 0; attempt < casAttempts; attempt++) {
                byte[] old = cache.get(key);
                CountCall.Applied applied = call.apply(old, now == CountProcessor.OWNERS_CLOCK ? CountProcessor.ownersClock() : now);
                if (!applied.write()) {
                    return applied.reply();
                }
                boolean written;
                if (old == null) {
                    written = applied.stored() == null || cache.putIfAbsent(key, applied.stored());
                } else if (applied.stored() == null) {
                    written = cache.remove(key, old);
                } else {
                    written = cache.replace(key, old, applied.stored());
                }
                if (written) {
                    return applied.reply();
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
                cache.invoke(CacheKeys.probe(Integer.toString(i)), CountProcessor.INSTANCE, CountProcessor.PROBE);
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

    /**
     * True when {@code failure} (or a cause) says the grid was not reached: one of Hazelcast's failures above, or the
     * store's own threads refused the call (their queue is full).
     */
    static boolean notReached(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RejectedExecutionException) {
                return true;
            }
            for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
                if (UNREACHABLE.contains(c.getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when {@code e} (or a cause) says the entry processor's class could not be loaded where its key lives. */
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
}
