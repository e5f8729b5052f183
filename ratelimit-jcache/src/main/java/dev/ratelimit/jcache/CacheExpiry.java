package dev.ratelimit.jcache;

import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/**
 * How long the cache keeps a count after its last write, read from its expiry policy once, and the warnings when it
 * keeps counts for ever, loses counts in use, or removes a limit's counts while they may still hold permits (once per
 * limit and window). Thread-safe: immutable but for the set of limits warned about, a concurrent set.
 */
final class CacheExpiry {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.jcache");
    private static final long NANOS_PER_MICRO = 1_000L;
    /** A window's step per second of the window: an eighth, in microseconds. */
    private static final long MICROS_PER_STEP_SECOND = 125_000L;

    private final String cacheName;
    /** How long after its last write a count is kept (microseconds; {@code Long.MAX_VALUE} when never removed). */
    private final long horizonMicros;
    private final String text;
    private final Set<String> warnedWindows = ConcurrentHashMap.newKeySet();

    private CacheExpiry(String cacheName, long horizonMicros, String text) {
        this.cacheName = cacheName;
        this.horizonMicros = horizonMicros;
        this.text = text;
    }

    /** The expiry of {@code cache}; warns at once when it keeps counts for ever or is not refreshed on write. */
    static CacheExpiry of(Cache<String, byte[]> cache) {
        ExpiryPolicy policy;
        try {
            CompleteConfiguration<?, ?> configuration = cache.getConfiguration(CompleteConfiguration.class);
            policy = configuration.getExpiryPolicyFactory() == null ? null : configuration.getExpiryPolicyFactory().create();
        } catch (RuntimeException e) {
            return new CacheExpiry(cache.getName(), Long.MAX_VALUE, "unknown (" + e + ")");
        }
        Duration created = policy == null ? Duration.ETERNAL : policy.getExpiryForCreation();
        if (created == null || created.isEternal()) {
            LOG.log(Level.WARNING, "ratelimit: cache " + cache.getName() + " keeps its entries for ever: counts that "
                    + "nobody spends from again are never removed (give it an expiry policy refreshed on write, e.g. "
                    + "ModifiedExpiryPolicy, longer than the longest window and one step)");
            return new CacheExpiry(cache.getName(), Long.MAX_VALUE, "eternal");
        }
        Duration updated = policy.getExpiryForUpdate();
        if (updated == null) {
            LOG.log(Level.WARNING, "ratelimit: cache " + cache.getName() + " expires entries " + created
                    + " after they are created, whatever writes them later: a count in use may be removed and start "
                    + "afresh (give it an expiry policy refreshed on write, e.g. ModifiedExpiryPolicy)");
            return new CacheExpiry(cache.getName(), 0, "not refreshed on write");
        }
        if (updated.isEternal()) {
            return new CacheExpiry(cache.getName(), Long.MAX_VALUE, "eternal");
        }
        return new CacheExpiry(cache.getName(), updated.getTimeUnit().toMicros(updated.getDurationAmount()),
                updated.getTimeUnit().toSeconds(updated.getDurationAmount()) + " s after the last write");
    }

    /** Warns once per limit whose counts may hold permits longer than the cache keeps an entry after its last write. */
    void check(RateLimitRequest request) {
        for (int i = 0; i < request.size(); i++) {
            RateLimitPolicy policy = request.policy(i);
            long needed = policy.windowSeconds() * (MICROS_PER_STEP_SECOND * 9) + request.maxWaitNanos(i) / NANOS_PER_MICRO;
            if (needed > horizonMicros && warnedWindows.add(policy.name() + "/" + policy.windowSeconds())) {
                LOG.log(Level.WARNING, "ratelimit: counts of limit " + policy + " hold permits up to "
                        + (needed + 999_999) / 1_000_000 + " s after they are spent, but cache " + cacheName
                        + " removes an entry " + text + ": a count nobody spends from for that long starts afresh "
                        + "too early (raise ratelimit.jcache.expiry-seconds, or the cache's expiry)");
            }
        }
    }

    /** The expiry as the start-up line says it. */
    @Override
    public String toString() {
        return text;
    }
}
