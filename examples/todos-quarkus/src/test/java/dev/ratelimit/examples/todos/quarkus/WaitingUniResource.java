package dev.ratelimit.examples.todos.quarkus;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.TimeUnit;

/**
 * Non-blocking resource methods (they return a {@code Uni}: Quarkus REST runs them on the event loop) that call
 * {@link WaitingUniBean#call()} and {@link WaitingUniBean#stream()}, whose permits may be a second away. The answer says on which thread the request
 * called ({@code X-Called-On}), how long after the call the bean's method ran ({@code X-Ran-After-Millis}), whether it
 * ran on the request's own Vert.x context ({@code X-Same-Context}), and, as its body, its thread (test only: not part
 * of the example).
 */
@Path("/quarkus-test/waiting-uni")
public class WaitingUniResource {

    @Inject
    WaitingUniBean bean;

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public Uni<Response> call() {
        Context requestContext = Vertx.currentContext();
        String calledOn = Thread.currentThread().getName();
        long called = System.nanoTime();
        return bean.call().map(ran -> answer(ran, requestContext, calledOn, called));
    }

    /** The same through {@link WaitingUniBean#stream()}, its {@code Multi} collected: the answer is its last item's. */
    @GET
    @Path("multi")
    @Produces(MediaType.TEXT_PLAIN)
    public Uni<Response> stream() {
        Context requestContext = Vertx.currentContext();
        String calledOn = Thread.currentThread().getName();
        long called = System.nanoTime();
        return bean.stream().collect().last().map(ran -> answer(ran, requestContext, calledOn, called));
    }

    private static Response answer(WaitingUniBean.Ran ran, Context requestContext, String calledOn, long called) {
        return Response.ok(ran.thread())
                .header("X-Called-On", calledOn)
                .header("X-Ran-After-Millis", TimeUnit.NANOSECONDS.toMillis(ran.nanos() - called))
                .header("X-Same-Context", ran.context() != null && ran.context() == requestContext)
                .build();
    }
}
