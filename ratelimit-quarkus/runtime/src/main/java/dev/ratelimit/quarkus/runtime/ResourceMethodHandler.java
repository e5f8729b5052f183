package dev.ratelimit.quarkus.runtime;

import io.quarkus.arc.Arc;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerRestHandler;

/**
 * The first handler of one resource method's chain (Quarkus REST's {@code AFTER_MATCH} phase, on the I/O thread,
 * before any request filter): starts the request's {@link RequestState} with the method's binding, found by an
 * index fixed at build time in the {@link Bindings} bean, which the first request looks up and the handler keeps. A
 * method that no limit covers starts nothing. One instance per resource method, made at build time and recorded with
 * its id (a bean-style property, for the recorder).
 */
public class ResourceMethodHandler implements ServerRestHandler {

    private int id;
    /** The method's binding, once a request has looked it up (made at run-time init, before any request). */
    private volatile MethodBinding binding;

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
        MethodBinding method = binding;
        if (method == null) {
            method = Arc.container().instance(Bindings.class).get().method(id);
            if (method == null) {
                return; // before run-time init: nothing is bound yet
            }
            binding = method;
        }
        if (method.decides) {
            RequestState.start(request, method);
        }
    }
}
