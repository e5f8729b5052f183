package dev.ratelimit.jcache;

import com.hazelcast.cache.impl.ICacheInternal;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;

/**
 * A Hazelcast cache that counts the calls made to it that reach the grid (reads, writes, entry processors): how many
 * calls a store makes. Every call goes to the real cache; as a Hazelcast cache of this JVM ({@link ICacheInternal}) it
 * offers what Hazelcast's own does, so a store on it announces as on the real one.
 */
final class CountingCache {

    private static final Set<String> GRID_CALLS = Set.of("invoke", "invokeAll", "get", "getAll", "containsKey", "put",
            "putAll", "putIfAbsent", "getAndPut", "replace", "getAndReplace", "remove", "removeAll", "getAndRemove");

    private final Cache<String, byte[]> cache;
    private final AtomicLong calls = new AtomicLong();

    @SuppressWarnings("unchecked")
    CountingCache(Cache<String, byte[]> real) {
        this.cache = (Cache<String, byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ICacheInternal.class}, (proxy, method, args) -> {
                    if (GRID_CALLS.contains(method.getName())) {
                        calls.incrementAndGet();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The counting cache. */
    Cache<String, byte[]> cache() {
        return cache;
    }

    /** How many calls reached the grid so far. */
    long calls() {
        return calls.get();
    }
}
