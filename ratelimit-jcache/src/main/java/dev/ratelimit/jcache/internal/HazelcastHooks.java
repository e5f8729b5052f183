package dev.ratelimit.jcache.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;

/**
 * What the store needs of Hazelcast beyond the JCache API, looked up by reflection once, when the store is built
 * (the module depends on no provider). Two things, both only to hear announcements:
 * <ul>
 *   <li>a cache entry listener registered on this instance alone ({@code registerCacheEntryListener(configuration,
 *       false)}, offered by Hazelcast's member and client caches): JCache's own registration also writes the
 *       listener's configuration into the cache's configuration on every member, which must then load the listener's
 *       class, and which registers it once more in every instance that opens the cache;</li>
 *   <li>the cluster's membership and life-cycle events (a member joined or left, a split cluster merged, a client
 *       reconnected), after which an announcement may have been lost on its way.</li>
 * </ul>
 * A provider that offers neither is not Hazelcast: its listeners are not known to hear what other instances write,
 * and the store does not announce there. Stateless.
 */
public final class HazelcastHooks {

    private static final String MEMBERSHIP_LISTENER = "com.hazelcast.cluster.MembershipListener";
    private static final String LIFECYCLE_LISTENER = "com.hazelcast.core.LifecycleListener";

    private HazelcastHooks() {
    }

    /** Hazelcast's registration of a listener on this instance alone, on {@code cache}; null for another provider. */
    public static Method localRegistration(Cache<?, ?> cache) {
        return publicMethod(cache.getClass(), "registerCacheEntryListener", CacheEntryListenerConfiguration.class,
                boolean.class);
    }

    /** Registers {@code configuration}'s listener on this instance alone, through {@link #localRegistration}. */
    public static void registerLocally(Method registration, Cache<?, ?> cache,
                                       CacheEntryListenerConfiguration<?, ?> configuration) {
        call(registration, cache, configuration, false);
    }

    /**
     * Runs {@code action} after every change of the membership of the cluster that {@code manager} is on, and every
     * change of its instance's life cycle (a merge after a split, a client's reconnection, ...).
     *
     * @return what removes both listeners again; null when {@code manager} is not Hazelcast's
     */
    public static AutoCloseable onClusterChange(CacheManager manager, Runnable action) {
        Method instanceOf = publicMethod(manager.getClass(), "getHazelcastInstance");
        if (instanceOf == null) {
            return null;
        }
        Object instance = call(instanceOf, manager);
        Object cluster = call(publicMethod(instance.getClass(), "getCluster"), instance);
        Object lifecycle = call(publicMethod(instance.getClass(), "getLifecycleService"), instance);
        ClassLoader loader = instance.getClass().getClassLoader();
        Class<?> membership = load(MEMBERSHIP_LISTENER, loader);
        Class<?> life = load(LIFECYCLE_LISTENER, loader);
        Object members = call(publicMethod(cluster.getClass(), "addMembershipListener", membership), cluster,
                listener(membership, action));
        Object lives = call(publicMethod(lifecycle.getClass(), "addLifecycleListener", life), lifecycle,
                listener(life, action));
        Method removeMembers = publicMethod(cluster.getClass(), "removeMembershipListener", members.getClass());
        Method removeLives = publicMethod(lifecycle.getClass(), "removeLifecycleListener", lives.getClass());
        return () -> {
            call(removeMembers, cluster, members);
            call(removeLives, lifecycle, lives);
        };
    }

    /** An implementation of the listener interface {@code type} whose every method runs {@code action}. */
    private static Object listener(Class<?> type, Runnable action) {
        InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            case "toString" -> "ratelimit-jcache announcements (" + type.getSimpleName() + ")";
            default -> {
                action.run();
                yield null;
            }
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("ratelimit: a Hazelcast without " + name, e);
        }
    }

    /**
     * The method {@code name(parameters)} of {@code type}, as declared by a public class or interface of its (so that
     * it may be called from here); null when there is none.
     */
    private static Method publicMethod(Class<?> type, String name, Class<?>... parameters) {
        Deque<Class<?>> todo = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        todo.add(type);
        while (!todo.isEmpty()) {
            Class<?> c = todo.poll();
            if (!seen.add(c)) {
                continue;
            }
            if (Modifier.isPublic(c.getModifiers())) {
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals(name) && Modifier.isPublic(m.getModifiers()) && accepts(m, parameters)) {
                        return m;
                    }
                }
            }
            if (c.getSuperclass() != null) {
                todo.add(c.getSuperclass());
            }
            todo.addAll(List.of(c.getInterfaces()));
        }
        return null;
    }

    private static boolean accepts(Method m, Class<?>[] parameters) {
        Class<?>[] declared = m.getParameterTypes();
        if (declared.length != parameters.length) {
            return false;
        }
        for (int i = 0; i < declared.length; i++) {
            if (!declared[i].isAssignableFrom(parameters[i])) {
                return false;
            }
        }
        return true;
    }

    private static Object call(Method method, Object target, Object... args) {
        if (method == null) {
            throw new IllegalStateException("ratelimit: " + target.getClass().getName() + " is not the Hazelcast it looked like");
        }
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
