package dev.ratelimit.examples.todos.quarkus;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Reaches the class-limited beans over HTTP (test only: not part of the example). */
@Path("/quarkus-test")
@RequestScoped
public class ClassLimitResource {

    @Inject
    RepeatedClassLimitBean repeated;

    @GET
    @Path("repeated")
    @Produces(MediaType.TEXT_PLAIN)
    public String repeated() {
        return repeated.call();
    }
}
