package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.lifecycle.Suspension;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Suspends a request while a store's answer is pending, where the runtime lets a plain request filter
 * do so: Quarkus REST, whose request context is a {@code ResteasyReactiveContainerRequestContext}, and
 * which runs the filters of a non-blocking resource method on an I/O thread that must never wait.
 * Elsewhere (Jersey, RESTEasy on Open Liberty, Payara) request filters run on a worker thread, which
 * simply waits. Reflective, so that the library does not depend on any runtime; looked up once per
 * context class.
 */
final class RequestSuspension implements Suspension<ContainerRequestContext> {

    private static final String QUARKUS_REST_CONTEXT =
            "org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext";

    private static final Handles NONE = new Handles(null, null, null);

    private static final ClassValue<Handles> HANDLES = new ClassValue<>() {
        @Override
        protected Handles computeValue(Class<?> type) {
            Class<?> spi = findInterface(type, QUARKUS_REST_CONTEXT);
            if (spi == null) {
                return NONE;
            }
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodType noArgs = MethodType.methodType(void.class);
                return new Handles(lookup.findVirtual(spi, "suspend", noArgs), lookup.findVirtual(spi, "resume", noArgs),
                        lookup.findVirtual(spi, "resume", MethodType.methodType(void.class, Throwable.class)));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return NONE;
            }
        }
    };

    /** The one instance: it keeps nothing per request. */
    static final RequestSuspension OF_REQUEST = new RequestSuspension();

    private RequestSuspension() {
    }

    /** Suspends the request; false (and nothing done) where the runtime cannot suspend a filter. */
    @Override
    public boolean suspend(ContainerRequestContext request) {
        Handles handles = HANDLES.get(request.getClass());
        if (handles == NONE) {
            return false;
        }
        invoke(handles.suspend, request, null);
        return true;
    }

    /** Resumes a request that {@link #suspend} suspended: the next filter runs, or with {@code failure}, its mapper. */
    @Override
    public void resume(ContainerRequestContext request, Throwable failure) {
        Handles handles = HANDLES.get(request.getClass());
        invoke(failure == null ? handles.resume : handles.resumeWith, request, failure);
    }

    private static void invoke(MethodHandle handle, ContainerRequestContext request, Throwable failure) {
        try {
            if (failure == null) {
                handle.invoke(request);
            } else {
                handle.invoke(request, failure);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** The interface named {@code name} among those {@code type} implements, or null. */
    static Class<?> findInterface(Class<?> type, String name) {
        Deque<Class<?>> todo = new ArrayDeque<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            todo.add(c);
        }
        while (!todo.isEmpty()) {
            Class<?> c = todo.poll();
            if (c.isInterface() && c.getName().equals(name)) {
                return c;
            }
            for (Class<?> i : c.getInterfaces()) {
                todo.add(i);
            }
        }
        return null;
    }

    private record Handles(MethodHandle suspend, MethodHandle resume, MethodHandle resumeWith) {
    }
}
