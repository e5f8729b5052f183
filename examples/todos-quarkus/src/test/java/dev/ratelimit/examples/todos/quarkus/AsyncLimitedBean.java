package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A plain CDI bean (not a resource) whose limited methods return a {@code CompletionStage} and a Mutiny
 * {@code Uni}: the library's interceptor must chain the decision to the result, never wait for it.
 * Each method answers with the name of the thread its body ran on, which is after the decision allowed it
 * (test only: not part of the example).
 */
@ApplicationScoped
public class AsyncLimitedBean {

    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "async-stage")
    public CompletionStage<String> stage() {
        return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }

    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "async-uni")
    public Uni<String> uni() {
        return Uni.createFrom().item(Thread.currentThread().getName());
    }
}
