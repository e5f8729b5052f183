package dev.ratelimit.quarkus.runtime;

import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerRestHandler;

/**
 * The first handler of one resource method's chain (Quarkus REST's {@code AFTER_MATCH} phase, on the I/O thread,
 * before any request filter): starts the request's {@link RequestState} with the method's binding, found by an
 * index fixed at build time, without a lookup. A method that no limit covers starts nothing. One instance per
 * resource method, made at build time and recorded with its id (a bean-style property, for the recorder).
 */
public class ResourceMethodHandler implements ServerRestHandler {

    private int id;

    /** For the recorder. */
    public ResourceMethodHandler() {
    }

    public ResourceMethodHandler(int id) {
        this.id = id;
    }

    public int getId() {
        return id;
    }

    public void setId(int id) {
        this.id = id;
    }

    @Override
    public void handle(ResteasyReactiveRequestContext request) {
        MethodBinding method = Bindings.method(id);
        if (method.decides) {
            RequestState.start(request, method);
        }
    }
}
