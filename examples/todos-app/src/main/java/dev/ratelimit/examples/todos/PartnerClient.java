package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.rest.client.annotation.ClientHeaderParam;
import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * The partner that {@code POST /todos/{id}/share} sends todos to (docs/calls-to-other-services.md): a MicroProfile Rest
 * Client, configured by the key {@code partner} ({@code partner/mp-rest/url}, {@code partner/mp-rest/scope}), whose URL
 * each runtime's module sets to this very server's {@code POST /partner/inbox} (by configuration, or through
 * {@link SelfAddress}).
 *
 * <p>The partner allows 2 calls a second from this application, whoever its callers are: {@code per = APPLICATION}
 * (one count for every caller), and {@code STRICT_WINDOW}, so that no span of a second ever sees a third call
 * (whatever algorithm the partner counts with). A call over the limit reserves its turn (first come, first served)
 * and goes at the instant it comes, if that is within 5 s; a call whose turn would come later fails at once with
 * {@code RateLimitExceededException} (a 429 describing {@code partner}) and reserves nothing. The method returns a
 * {@code CompletionStage} (the client's asynchronous form), so a call that waits is delayed without holding a thread.
 *
 * <p>No {@code @Path} on the interface itself: Jersey's package scanning (the embedded example) would take the
 * interface for a root resource. The partner knows this application by the key it sends ({@code X-Api-Key}, the
 * example's own partition header), so that the shares spend from a count of their own there, not from the
 * anonymous one.
 */
@RegisterRestClient(configKey = "partner")
@RegisterProvider(SelfAddress.class)
@ClientHeaderParam(name = "X-Api-Key", value = PartnerClient.API_KEY)
public interface PartnerClient {

    /** What the partner calls this application. */
    String API_KEY = "todos-partner-client";

    /** Sends a todo to the partner's inbox; completes once the partner has answered (204). */
    @POST
    @Path("/partner/inbox")
    @Consumes(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 2, windowSeconds = 1, name = "partner", per = RateLimitPer.APPLICATION,
            algorithm = RateLimitAlgorithm.STRICT_WINDOW, maxWaitMillis = 5000)
    CompletionStage<Void> send(Todo todo);
}
