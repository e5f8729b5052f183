package dev.ratelimit.jcache.internal;

import dev.ratelimit.core.CountKey;

/**
 * The cache key of the count of (name, plan, partition): {@code <name>[/<plan>]|<partition>}, e.g.
 * {@code burst|X-Api-Key:abc} or {@code burst/gold|X-Api-Key:abc}; the one count of a key
 * {@linkplain CountKey#perApplication() per application} is that of the partition {@code application}, as in the
 * other stores. Names and plans are made of {@code [A-Za-z0-9._-]}, so the first {@code |} ends them and the
 * partition is everything after it, whatever it contains: two different triples never share a key. Plain strings:
 * every grid keeps them without the library's classes.
 */
public final class CacheKeys {

    private CacheKeys() {
    }

    /** What every key of {@code key}'s counts begins with. */
    public static String prefix(CountKey key) {
        return (key.plan() == null ? key.name() : key.name() + '/' + key.plan()) + '|';
    }

    /** A key that no count ever has (its name part is not a limit name): for the store's own probes. */
    public static String probe(String suffix) {
        return "~probe|" + suffix;
    }
}
