package dev.ratelimit.examples.todos.quarkus;

import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Non-blocking resource methods (they return {@code CompletionStage} and {@code Uni}: Quarkus REST runs them on
 * the event loop) that call {@link AsyncLimitedBean}'s limited methods. Each answer says where the resource
 * method ran ({@code X-Called-On}), how long the intercepted call took to return its stage or {@code Uni}
 * ({@code X-Call-Returned-Micros}: the decision is chained, so at once, whatever the store), and, as its
 * body, where the bean's method body ran. A refusal fails the result with RateLimitExceededException, which
 * the library's exception mapper answers with a 429. {@code ping} touches no store: it shows whether an event
 * loop is free (test only: not part of the example).
 */
@Path("/quarkus-test/async-bean")
public class AsyncBeanResource {

    @Inject
    AsyncLimitedBean bean;

    @GET
    @Path("stage")
    @Produces(MediaType.TEXT_PLAIN)
    public CompletionStage<Response> stage() {
        String calledOn = Thread.currentThread().getName();
        long start = System.nanoTime();
        CompletionStage<String> result = bean.stage();
        long returnedMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
        return result.thenApply(ranOn -> answer(ranOn, calledOn, returnedMicros));
    }

    @GET
    @Path("uni")
    @Produces(MediaType.TEXT_PLAIN)
    public Uni<Response> uni() {
        String calledOn = Thread.currentThread().getName();
        long start = System.nanoTime();
        Uni<String> result = bean.uni();
        long returnedMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
        return result.map(ranOn -> answer(ranOn, calledOn, returnedMicros));
    }

    @GET
    @Path("ping")
    @NonBlocking
    @Produces(MediaType.TEXT_PLAIN)
    public String ping() {
        return Thread.currentThread().getName();
    }

    private static Response answer(String ranOn, String calledOn, long returnedMicros) {
        return Response.ok(ranOn).header("X-Called-On", calledOn).header("X-Call-Returned-Micros", returnedMicros).build();
    }
}
