package dev.ratelimit.jcache;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.jcache.internal.CacheKeys;

/**
 * The store's handle on the counts of one {@link CountKey} ({@code bind}): the start of their cache keys, made once.
 * Immutable.
 */
final class CountKeyPrefix {

    private final String prefix;
    private final boolean perApplication;
    private final String applicationKey;

    CountKeyPrefix(CountKey key) {
        this.prefix = CacheKeys.prefix(key);
        this.perApplication = key.perApplication();
        this.applicationKey = prefix + CountKey.APPLICATION;
    }

    /** The cache key of the count of limit {@code i} of {@code request} for {@code partition}. */
    static String key(String partition, RateLimitRequest request, int i) {
        Object handle = request.handle(i);
        CountKeyPrefix bound = handle instanceof CountKeyPrefix b ? b : new CountKeyPrefix(request.key(i));
        return bound.perApplication ? bound.applicationKey : bound.prefix.concat(partition);
    }

    @Override
    public String toString() {
        return "JCacheRateLimitStore.CountKeyPrefix[" + prefix + "]";
    }
}
