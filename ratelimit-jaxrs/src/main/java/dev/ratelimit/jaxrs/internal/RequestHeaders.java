package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.jaxrs.caller.JaxrsCaller;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * Reads one request header for the partitioner, as {@link ContainerRequestContext#getHeaderString} does: null
 * when absent, the values of a repeated header joined with {@code ','}.
 *
 * <p>Quarkus REST copies every header of the request into a case-insensitive tree map the first time anything
 * reads a header through Jakarta REST, which on a small request costs more than the rest of the partition; the
 * no-limiter request path never does it. There the header is read from the server request instead (Quarkus
 * REST's {@code ServerHttpRequest}, over Vert.x's case-insensitive header map: nothing copied), with the same
 * result. Everywhere else, and whenever the lookup of that path fails, {@code getHeaderString}. Reflective, so
 * that the library does not depend on any runtime; looked up once per context class.
 */
final class RequestHeaders {

    private static final String QUARKUS_REST_CONTEXT =
            "org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext";
    private static final String QUARKUS_REST_REQUEST = "org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext";
    private static final String QUARKUS_REST_HTTP_REQUEST = "org.jboss.resteasy.reactive.server.spi.ServerHttpRequest";

    private static final Reader PORTABLE = new Reader(null);

    private static final ClassValue<Reader> READERS = new ClassValue<>() {
        @Override
        protected Reader computeValue(Class<?> type) {
            Class<?> spi = RequestSuspension.findInterface(type, QUARKUS_REST_CONTEXT);
            if (spi == null) {
                return PORTABLE;
            }
            try {
                ClassLoader loader = spi.getClassLoader();
                Class<?> request = Class.forName(QUARKUS_REST_REQUEST, false, loader);
                Class<?> httpRequest = Class.forName(QUARKUS_REST_HTTP_REQUEST, false, loader);
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodHandle context = lookup.findVirtual(spi, "getServerRequestContext",
                        MethodType.methodType(spi.getMethod("getServerRequestContext").getReturnType()));
                MethodHandle serverRequest = lookup.findVirtual(request, "serverRequest", MethodType.methodType(httpRequest));
                MethodHandle values = lookup.findVirtual(httpRequest, "getAllRequestHeaders",
                        MethodType.methodType(List.class, String.class));
                MethodHandle toHttpRequest = MethodHandles.filterReturnValue(
                        context.asType(MethodType.methodType(request, spi)), serverRequest);
                return new Reader(MethodHandles.filterArguments(values, 0, toHttpRequest)
                        .asType(MethodType.methodType(List.class, ContainerRequestContext.class, String.class)));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return PORTABLE;
            }
        }
    };

    private RequestHeaders() {
    }

    /** The value of header {@code name} (matched without regard to case), or null. */
    static String get(ContainerRequestContext request, String name) {
        MethodHandle values = READERS.get(request.getClass()).values;
        if (values == null) {
            return request.getHeaderString(name);
        }
        List<String> all;
        try {
            all = (List<String>) values.invokeExact(request, name);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
        return JaxrsCaller.joined(all);
    }

    /** How to read a header's values from a request of one context class; {@code values} null: the portable way. */
    private record Reader(MethodHandle values) {
    }
}
