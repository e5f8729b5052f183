package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitPer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * The partner's side, as the example plays it: {@code POST /partner/inbox} takes a todo and answers 204.
 * It is where {@link PartnerClient} sends by default, and it caps its back end, whatever the number of callers: 600
 * messages a minute for all callers together ({@code per = APPLICATION}, the partition {@code application}), beside
 * each caller's own counts (a global limit, when configured). The shares never reach that cap alone: the partner
 * limit lets at most 2 a second (120 a minute) leave this application.
 */
@Path("/partner")
@ApplicationScoped
public class PartnerInbox {

    @POST
    @Path("inbox")
    @Consumes(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 600, windowSeconds = 60, name = "inbox", per = RateLimitPer.APPLICATION)
    @APIResponse(responseCode = "204", description = "Received.")
    @APIResponse(responseCode = "400", description = "The body is not a todo {\"id\": 1, \"title\": \"...\", \"done\": false} "
            + "with a title that is not blank.",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public void receive(Todo todo) {
        if (todo == null || todo.title() == null || todo.title().isBlank()) {
            throw new WebApplicationException(Problem.of(Response.Status.BAD_REQUEST,
                    "The body must be a todo {\"id\": 1, \"title\": \"...\", \"done\": false} with a title that is not blank.")
                    .build());
        }
        // received: the example's partner keeps nothing
    }
}
