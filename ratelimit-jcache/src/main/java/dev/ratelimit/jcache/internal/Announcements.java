package dev.ratelimit.jcache.internal;

import dev.ratelimit.core.RateLimitStore.CountListener;
import java.io.Serial;
import java.io.Serializable;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.time.Duration;
import java.util.function.BiFunction;
import javax.cache.Cache;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryUpdatedListener;

/**
 * Tells every instance that a count which refused has gained permits (a give-back, a restart), made by any instance:
 * the one that made the change writes the count's key into a cache of announcements beside the counts
 * ({@code <counts cache>.announcements}, entries kept a minute), and each instance that listens hears the write through
 * a cache entry listener registered on that instance alone ({@link HazelcastHooks}), which names the count to the
 * engine ({@link CountListener#gained}). The listener and its factory never leave this instance, so no other member
 * needs the library's classes. When an announcement may have been lost on its way (a member joined or left, a split
 * cluster merged, a client reconnected), every listener hears that anything may have gained
 * ({@link CountListener#anyMayHaveGained}), as it does once when it starts listening.
 *
 * <p>Only on Hazelcast, whose listeners hear the writes of every member: {@link #open} returns null elsewhere.
 *
 * <p>Thread-safe: the registrations are guarded by {@code this}; announcing touches only the grid and an atomic stamp.
 */
public final class Announcements implements AutoCloseable {

    /** How long an announcement stays in its cache: only its write matters; a minute bounds what the cache holds. */
    static final long KEPT_SECONDS = 60;
    /** Longer than any count's key can be. */
    static final int LONGEST = 65_536;
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final System.Logger LOG = System.getLogger("dev.ratelimit.jcache");

    private final Cache<String, byte[]> channel;
    private final Method registration;
    /** Makes each announcement's value new, so that every provider reports it as a write. */
    private final AtomicLong stamp = new AtomicLong();
    private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());
    /** Entries of the cache of announcements that were no count's key: ignored. */
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong nextMalformedWarning = new AtomicLong(System.nanoTime());
    /** Guarded by {@code this}. */
    private final List<CacheEntryListenerConfiguration<String, byte[]>> listening = new ArrayList<>();
    /** Guarded by {@code this}. */
    private final List<AutoCloseable> hooks = new ArrayList<>();

    private Announcements(Cache<String, byte[]> channel, Method registration) {
        this.channel = channel;
        this.registration = registration;
    }

    /**
     * The announcements of the counts in {@code counts}, in the cache of announcements beside it (made by
     * {@code open(manager, name, kept)} when it does not exist); null when the provider is not Hazelcast.
     */
    public static Announcements open(Cache<String, byte[]> counts,
                                     BiFunction<String, Duration, Cache<String, byte[]>> open) {
        if (HazelcastHooks.localRegistration(counts) == null) {
            return null;
        }
        Cache<String, byte[]> channel = open.apply(counts.getName() + ".announcements", Duration.ofSeconds(KEPT_SECONDS));
        Method registration = HazelcastHooks.localRegistration(channel);
        if (registration == null) {
            throw new IllegalStateException("ratelimit: cache " + channel.getName() + " is not Hazelcast's, as cache "
                    + counts.getName() + " is");
        }
        return new Announcements(channel, registration);
    }

    /** The name of the cache of announcements. */
    public String cacheName() {
        return channel.getName();
    }

    /**
     * Announces that the count of cache key {@code countKey} gained permits after a refusal; the change is visible to
     * every later call. A failure is logged (at most once a minute), not thrown: the permits are back, and an instance
     * that misses the announcement answers the refusal itself at most until it runs out.
     */
    public void announce(String countKey) {
        long n = stamp.incrementAndGet();
        try {
            channel.put(countKey, new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        } catch (RuntimeException e) {
            long now = System.nanoTime();
            long due = nextWarning.get();
            if (now - due >= 0 && nextWarning.compareAndSet(due, now + WARN_EVERY_NANOS)) {
                LOG.log(Level.WARNING, "ratelimit: could not announce that the count " + countKey + " gained permits "
                        + "(cache " + channel.getName() + "); instances that remember its refusal answer it until it "
                        + "runs out (ratelimit.store.refusal-memory-millis at most)", e);
            }
        }
    }

    /**
     * From now on tells {@code listener} of every announcement, and that anything may have gained whenever one may
     * have been lost; tells it so once now, when its listener is in place. An entry whose key is not that of a count
     * (garbage, forged, another application's text), or longer than any key, is counted ({@link #malformed()}) and
     * ignored, logged at most once a minute, never thrown: whoever can write to the cache of announcements can make an
     * instance forget a refusal it remembered, nothing more. (A count of a limit this instance does not declare, of
     * another version of the application, finds nothing remembered.)
     */
    public synchronized void listen(CountListener listener) {
        CacheEntryListenerConfiguration<String, byte[]> configuration = new MutableCacheEntryListenerConfiguration<>(
                new LocalFactory(new Heard(listener, this)), null, false, false);
        HazelcastHooks.registerLocally(registration, channel, configuration);
        listening.add(configuration);
        try {
            AutoCloseable hook = HazelcastHooks.onClusterChange(channel.getCacheManager(), listener::anyMayHaveGained);
            if (hook != null) {
                hooks.add(hook);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ratelimit: cannot hear when members of the grid of cache " + channel.getName()
                    + " come and go; an announcement lost meanwhile costs at most ratelimit.store.refusal-memory-millis", e);
        }
        listener.anyMayHaveGained();
    }

    /** How many announcements were ignored since the store was built: no count's key. */
    public long malformed() {
        return malformed.get();
    }

    /** Counts an announcement ignored; the first, then at most one a minute, is logged, without its text. */
    void ignored(String problem, int length) {
        long total = malformed.incrementAndGet();
        long now = System.nanoTime();
        long due = nextMalformedWarning.get();
        if (now - due >= 0 && nextMalformedWarning.compareAndSet(due, now + WARN_EVERY_NANOS)) {
            LOG.log(Level.WARNING, "ratelimit: ignored an entry with a key of " + length + " characters in the cache of "
                    + "announcements " + channel.getName() + ": " + problem + " (" + total + " ignored so far; at most "
                    + "one such line a minute). Another application or version on the same cache, or someone writing "
                    + "there: the cache must be as protected as the grid itself");
        }
    }

    /** Stops every listener of this instance. */
    @Override
    public synchronized void close() {
        for (AutoCloseable hook : hooks) {
            try {
                hook.close();
            } catch (Exception e) {
                LOG.log(Level.DEBUG, "ratelimit: removing a cluster listener failed", e);
            }
        }
        hooks.clear();
        for (CacheEntryListenerConfiguration<String, byte[]> configuration : listening) {
            try {
                channel.deregisterCacheEntryListener(configuration);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "ratelimit: removing the listener of cache " + channel.getName() + " failed", e);
            }
        }
        listening.clear();
    }

    /** What one listener hears: each written key that is a count's names the count to the engine. */
    private record Heard(CountListener listener, Announcements announcements)
            implements CacheEntryCreatedListener<String, byte[]>, CacheEntryUpdatedListener<String, byte[]> {

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> events) {
            tell(events);
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> events) {
            tell(events);
        }

        private void tell(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> events) {
            for (CacheEntryEvent<? extends String, ? extends byte[]> event : events) {
                String key = event.getKey();
                String problem;
                if (key == null || key.length() > LONGEST) {
                    problem = "longer than any count's key";
                } else {
                    String[] count;
                    try {
                        count = CacheKeys.parse(key);
                    } catch (RuntimeException e) {
                        count = null;
                    }
                    if (count == null) {
                        problem = "not the key of a count";
                    } else {
                        try {
                            listener.gained(count[0], count[1], count[2]);
                            continue;
                        } catch (RuntimeException e) {
                            problem = "the engine could not take it (" + e.getClass().getName() + ")";
                        }
                    }
                }
                announcements.ignored(problem, key == null ? 0 : key.length());
            }
        }
    }

    /**
     * The listener's factory: JCache asks for a serializable one. It is used on this instance only, and the one time
     * Hazelcast sends it elsewhere (removing the listener, it tells the other members to drop it from their copy of the
     * cache's configuration, where it never was) it travels as a class of the JCache API, which every member loads,
     * instead of as this one, which a member without the application could not.
     */
    private static final class LocalFactory implements Factory<CacheEntryListener<? super String, ? super byte[]>> {

        @Serial
        private static final long serialVersionUID = 1L;

        private final transient Heard heard;

        LocalFactory(Heard heard) {
            this.heard = heard;
        }

        @Override
        public CacheEntryListener<? super String, ? super byte[]> create() {
            return heard;
        }

        @Serial
        private Object writeReplace() {
            return new FactoryBuilder.ClassFactory<Serializable>(LocalFactory.class.getName());
        }
    }
}
