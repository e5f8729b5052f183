package dev.ratelimit.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The address of a request's connection, as the runtime reports it (the peer: docs/partitions.md, "How the client is
 * found"). Jakarta REST has no
 * portable API for it (jakartaee/rest#521), and a filter registered as an instance gets no {@code @Context}
 * injection on most runtimes, so it is read from the native request behind the {@link ContainerRequestContext}:
 * <ul>
 * <li>Quarkus REST: its server request unwrapped to Vert.x's {@code HttpServerRequest}, {@code remoteAddress()}
 * (after Quarkus' own {@code quarkus.http.proxy.*} forwarding, when configured);</li>
 * <li>RESTEasy (Open Liberty): {@code getHttpRequest().getRemoteAddress()}, the servlet request's address
 * (after Liberty's {@code <remoteIp>}, when configured);</li>
 * <li>Jersey (the embedded server on Grizzly, Payara): the native request that Jersey's properties delegate
 * wraps, Grizzly's {@code Request} or the servlet request, and its {@code getRemoteAddr()}.</li>
 * </ul>
 * Each is a {@link PeerReader} of method handles, found once per request context class (and, for Jersey, per
 * properties delegate class) by reflection, so that the library depends on no runtime. Where none applies, or
 * the reader fails, the peer is unknown ({@code addr:unknown}) and one warning says that client addresses are
 * not available on this runtime.
 */
public final class PeerAddresses {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private static final String QUARKUS_REST_CONTEXT =
            "org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext";
    private static final String QUARKUS_REST_REQUEST = "org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext";
    private static final String QUARKUS_REST_HTTP_REQUEST = "org.jboss.resteasy.reactive.server.spi.ServerHttpRequest";
    private static final String VERTX_REQUEST = "io.vertx.core.http.HttpServerRequest";
    private static final String VERTX_ADDRESS = "io.vertx.core.net.SocketAddress";

    private static final MethodType OBJECT_TO_STRING = MethodType.methodType(String.class, Object.class);
    private static final MethodType OBJECT_TO_OBJECT = MethodType.methodType(Object.class, Object.class);

    /** How one runtime tells the peer of a request. */
    @FunctionalInterface
    interface PeerReader {
        /** The peer's address as text, or null when this request has none the reader can tell. */
        String peer(ContainerRequestContext request) throws Throwable;
    }

    private static final PeerReader NONE = request -> null;

    private static final ClassValue<PeerReader> READERS = new ClassValue<>() {
        @Override
        protected PeerReader computeValue(Class<?> type) {
            PeerReader reader = quarkusRest(type);
            if (reader == null) {
                reader = resteasy(type);
            }
            if (reader == null) {
                reader = jersey(type);
            }
            return reader == null ? NONE : reader;
        }
    };

    private static final String JERSEY_PROPERTIES_DELEGATE = "org.glassfish.jersey.internal.PropertiesDelegate";
    /** Jersey may wrap the container's delegate (tracing): so many wrappers are followed at most. */
    private static final int JERSEY_WRAPPERS = 4;

    /** Per Jersey properties delegate class: how to reach the native request's address from it. */
    private static final ClassValue<DelegateStep> JERSEY_DELEGATES = new ClassValue<>() {
        @Override
        protected DelegateStep computeValue(Class<?> type) {
            return delegateStep(type);
        }
    };

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private PeerAddresses() {
    }

    /** The packages of the Jakarta REST runtimes whose requests' peers this class reads. */
    private static final List<String> KNOWN_RUNTIMES = List.of("org.glassfish.jersey.", "org.jboss.resteasy.",
            "io.quarkus.", "io.openliberty.", "com.ibm.ws.");

    /**
     * True when {@code runtimeObject} (an object the Jakarta REST runtime made, such as the {@code FeatureContext} a
     * {@code DynamicFeature} is given) belongs to a runtime whose requests' peers this class can read: Jersey (the
     * embedded server, Payara), RESTEasy (Open Liberty) or Quarkus REST. Known at deployment, before any request.
     */
    public static boolean knownRuntime(Object runtimeObject) {
        for (Class<?> c = runtimeObject.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            if (known(c)) {
                return true;
            }
            for (Class<?> implemented : c.getInterfaces()) {
                if (known(implemented)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean known(Class<?> type) {
        for (String prefix : KNOWN_RUNTIMES) {
            if (type.getName().startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The peer of {@code request} as text, or null (warned about once) when this runtime cannot tell it. */
    static String of(ContainerRequestContext request) {
        PeerReader reader = READERS.get(request.getClass());
        String peer;
        try {
            peer = reader.peer(request);
        } catch (Throwable e) {
            if (e instanceof Error error && !(e instanceof LinkageError)) {
                throw error;
            }
            unavailable(request, e);
            return null;
        }
        if (peer == null && reader == NONE) {
            unavailable(request, null);
        }
        return peer;
    }

    private static void unavailable(ContainerRequestContext request, Throwable cause) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "ratelimit: client addresses are not available on this runtime (no way known to read the "
                    + "peer of a " + request.getClass().getName() + (cause == null ? "" : ": " + cause) + "): requests "
                    + "partitioned by address (ratelimit.partition-by) all count as addr:unknown, one shared count");
        }
    }

    /** Quarkus REST: context -> ResteasyReactiveRequestContext -> ServerHttpRequest -> unwrap(HttpServerRequest). */
    private static PeerReader quarkusRest(Class<?> type) {
        Class<?> spi = RequestSuspension.findInterface(type, QUARKUS_REST_CONTEXT);
        if (spi == null) {
            return null;
        }
        try {
            ClassLoader loader = spi.getClassLoader();
            Class<?> request = Class.forName(QUARKUS_REST_REQUEST, false, loader);
            Class<?> httpRequest = Class.forName(QUARKUS_REST_HTTP_REQUEST, false, loader);
            Class<?> vertxRequest = Class.forName(VERTX_REQUEST, false, loader);
            Class<?> vertxAddress = Class.forName(VERTX_ADDRESS, false, loader);
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle context = lookup.findVirtual(spi, "getServerRequestContext",
                    MethodType.methodType(spi.getMethod("getServerRequestContext").getReturnType()));
            MethodHandle serverRequest = lookup.findVirtual(request, "serverRequest", MethodType.methodType(httpRequest));
            MethodHandle unwrap = MethodHandles.insertArguments(
                    lookup.findVirtual(httpRequest, "unwrap", MethodType.methodType(Object.class, Class.class)), 1, vertxRequest);
            MethodHandle toVertx = MethodHandles.filterReturnValue(MethodHandles.filterReturnValue(
                    context.asType(MethodType.methodType(request, spi)), serverRequest), unwrap)
                    .asType(MethodType.methodType(Object.class, ContainerRequestContext.class));
            MethodHandle remoteAddress = lookup.findVirtual(vertxRequest, "remoteAddress", MethodType.methodType(vertxAddress))
                    .asType(OBJECT_TO_OBJECT);
            MethodHandle hostAddress = lookup.findVirtual(vertxAddress, "hostAddress", MethodType.methodType(String.class))
                    .asType(OBJECT_TO_STRING);
            return ctx -> {
                Object vertx = (Object) toVertx.invokeExact(ctx);
                Object address = vertx == null ? null : (Object) remoteAddress.invokeExact(vertx);
                return address == null ? null : (String) hostAddress.invokeExact(address);
            };
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** RESTEasy: {@code getHttpRequest()}, whose {@code HttpRequest} has {@code getRemoteAddress()}. */
    private static PeerReader resteasy(Class<?> type) {
        try {
            Method getHttpRequest = type.getMethod("getHttpRequest");
            Method getRemoteAddress = getHttpRequest.getReturnType().getMethod("getRemoteAddress");
            if (getRemoteAddress.getReturnType() != String.class) {
                return null;
            }
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle read = MethodHandles.filterReturnValue(
                    lookup.unreflect(getHttpRequest).asType(MethodType.methodType(Object.class, type)),
                    lookup.unreflect(getRemoteAddress).asType(OBJECT_TO_STRING))
                    .asType(MethodType.methodType(String.class, ContainerRequestContext.class));
            return ctx -> (String) read.invokeExact(ctx);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Jersey: {@code getPropertiesDelegate()}, then the native request it wraps (per delegate class). */
    private static PeerReader jersey(Class<?> type) {
        try {
            Method getDelegate = type.getMethod("getPropertiesDelegate");
            MethodHandle delegate = MethodHandles.publicLookup().unreflect(getDelegate)
                    .asType(MethodType.methodType(Object.class, ContainerRequestContext.class));
            return ctx -> {
                Object properties = (Object) delegate.invokeExact(ctx);
                for (int depth = 0; properties != null && depth <= JERSEY_WRAPPERS; depth++) {
                    DelegateStep step = JERSEY_DELEGATES.get(properties.getClass());
                    if (step.remoteAddr != null) {
                        return (String) step.remoteAddr.invokeExact(properties);
                    }
                    if (step.inner == null) {
                        throw new UnsupportedOperationException("Jersey's properties delegate " + properties.getClass().getName()
                                + " holds no request with getRemoteAddr()");
                    }
                    properties = (Object) step.inner.invokeExact(properties);
                }
                return null;
            };
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * From a Jersey properties delegate to the peer: {@code remoteAddr} reads it, from a field holding a request
     * with a public {@code String getRemoteAddr()} ({@code GrizzlyRequestPropertiesDelegate}: Grizzly's
     * {@code Request}; {@code ServletPropertiesDelegate}: the servlet request); else {@code inner} reads the
     * delegate that this one wraps ({@code TracingAwarePropertiesDelegate}); else both are null. Fields are read
     * through a private lookup: Jersey keeps them private and offers no accessor.
     */
    private record DelegateStep(MethodHandle remoteAddr, MethodHandle inner) {
    }

    private static DelegateStep delegateStep(Class<?> type) {
        MethodHandle inner = null;
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) {
                    continue;
                }
                try {
                    if (field.getType().getName().equals(JERSEY_PROPERTIES_DELEGATE)) {
                        if (inner == null) {
                            inner = getter(c, field).asType(OBJECT_TO_OBJECT);
                        }
                        continue;
                    }
                    Method getRemoteAddr = field.getType().getMethod("getRemoteAddr");
                    if (getRemoteAddr.getReturnType() != String.class) {
                        continue;
                    }
                    MethodHandle remoteAddr = MethodHandles.filterReturnValue(getter(c, field),
                            MethodHandles.publicLookup().unreflect(getRemoteAddr).asType(OBJECT_TO_STRING));
                    return new DelegateStep(remoteAddr.asType(OBJECT_TO_STRING), null);
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    // not this field
                }
            }
        }
        return new DelegateStep(null, inner);
    }

    /** A getter of a private field, as {@code (Object)Object}. */
    private static MethodHandle getter(Class<?> owner, Field field) throws IllegalAccessException {
        return MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).unreflectGetter(field)
                .asType(MethodType.methodType(Object.class, owner)).asType(OBJECT_TO_OBJECT);
    }
}
