package dev.ratelimit.jcache.internal;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitPolicy;

/**
 * The cache key of the count of (name, plan, partition): {@code <name>[/<plan>]|<partition>}, e.g.
 * {@code burst|X-Api-Key:abc} or {@code burst/gold|X-Api-Key:abc}; the one count of a key
 * {@linkplain CountKey#perApplication() per application} is that of the partition {@code application}, as in the
 * other stores. Names and plans are made of {@code [A-Za-z0-9._-]}, so the first {@code |} ends them and the
 * partition is everything after it, whatever it contains: two different triples never share a key. Plain strings:
 * every grid keeps them without the library's classes.
 */
public final class CacheKeys {

    /**
     * The key of the fingerprint of {@code ratelimit.key-secret}, beside the counts: no count's (its name part is not a
     * limit name).
     */
    public static final String KEY_SECRET_FINGERPRINT = "~key-secret-fingerprint|";

    private CacheKeys() {
    }

    /** What every key of {@code key}'s counts begins with. */
    public static String prefix(CountKey key) {
        return (key.plan() == null ? key.name() : key.name() + '/' + key.plan()) + '|';
    }

    /**
     * The name, plan (null: callers in no plan) and partition of the count whose key is {@code key}; null when
     * {@code key} is no count's (a probe's, or another application's text).
     */
    public static String[] parse(String key) {
        int bar = key.indexOf('|');
        if (bar < 0) {
            return null;
        }
        int slash = key.lastIndexOf('/', bar);
        String name = key.substring(0, slash < 0 ? bar : slash);
        String plan = slash < 0 ? null : key.substring(slash + 1, bar);
        if (!RateLimitPolicy.NAME.matcher(name).matches() || (plan != null && !RateLimitPolicy.NAME.matcher(plan).matches())) {
            return null;
        }
        return new String[] {name, plan, key.substring(bar + 1)};
    }

    /** A key that no count ever has (its name part is not a limit name): for the store's own probes. */
    public static String probe(String suffix) {
        return "~probe|" + suffix;
    }
}
