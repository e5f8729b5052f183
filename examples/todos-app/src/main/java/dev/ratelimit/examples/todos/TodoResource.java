package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitScope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * The todos API of the example application. {@code GET /todos/{id}}, {@code GET /todos/export} and
 * {@code POST /todos/import} have no limit of their own, so the module limit of {@link TodosApplication} covers them;
 * the export's CDI bean carries one, and the import spends one {@code items} permit per todo through the programmatic
 * API. {@code POST /todos/{id}/share} sends a todo to the partner through {@link PartnerClient}, whose limit waits.
 * Every answer is documented for the OpenAPI document (the 429s and the rate-limit headers are added by
 * ratelimit-openapi).
 */
@Path("/todos")
@ApplicationScoped
public class TodoResource {

    private static final String PROBLEM = "application/problem+json";

    private final TodoRepository todos;
    private final ExportService exports;
    private final RateLimiter limiter;
    private final PartnerClient partner;

    @Inject
    public TodoResource(TodoRepository todos, ExportService exports, RateLimiter limiter,
                        @RestClient PartnerClient partner) {
        this.todos = todos;
        this.exports = exports;
        this.limiter = limiter;
        this.partner = partner;
    }

    /** For the container's client proxy only. */
    protected TodoResource() {
        this(null, null, null, null);
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 3, windowSeconds = 60)
    @APIResponse(responseCode = "200", description = "Every todo, in creation order.",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = Todo.class)))
    public List<Todo> all() {
        return todos.all();
    }

    // A literal segment beats a template in JAX-RS matching, so /todos/export never reaches one().
    @GET
    @Path("export")
    @Produces("text/csv")
    @APIResponse(responseCode = "200", description = "Every todo as CSV (RFC 4180), with a header line.",
            content = @Content(mediaType = "text/csv", schema = @Schema(type = SchemaType.STRING)))
    public String export() {
        return exports.export();
    }

    /** A report that scans everything: worth four permits of the ten a minute of {@code reports}. */
    @GET
    @Path("report")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(permitLimit = 10, windowSeconds = 60, name = "reports", cost = 4)
    @APIResponse(responseCode = "200", description = "A summary of the todos, in plain text.",
            content = @Content(mediaType = MediaType.TEXT_PLAIN, schema = @Schema(type = SchemaType.STRING)))
    public String report() {
        List<Todo> all = todos.all();
        long done = all.stream().filter(Todo::done).count();
        return all.size() + " todos: " + done + " done, " + (all.size() - done) + " open\n";
    }

    // An id that is not a long fails the @PathParam conversion: 404, as JAX-RS requires for path params.
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The todo.",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Todo.class)))
    @APIResponse(responseCode = "404", description = "No todo has this id.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    public Todo one(@PathParam("id") long id) {
        return todos.find(id).orElseThrow(() -> notFound(id));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 5, windowSeconds = 1, name = "burst")
    @RateLimit(permitLimit = 500, windowSeconds = 3600, name = "hourly")
    @APIResponse(responseCode = "201", description = "Created.",
            headers = @Header(name = "Location", description = "The new todo's URI.", schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Todo.class)))
    @APIResponse(responseCode = "400", description = "The body is not {\"title\": \"...\"} with a title that is not blank.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "A todo with this title exists already.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    public Response create(NewTodo body, @Context UriInfo uriInfo) {
        if (body == null || body.title() == null || body.title().isBlank()) {
            throw badRequest("The body must be {\"title\": \"...\"} with a title that is not blank.");
        }
        Todo created = todos.create(body.title()).orElseThrow(() -> new WebApplicationException(
                Problem.of(Response.Status.CONFLICT, "A todo titled '" + body.title() + "' exists already.").build()));
        URI location = uriInfo.getAbsolutePathBuilder().path(Long.toString(created.id())).build();
        return Response.created(location).entity(created).build();
    }

    /**
     * Imports todos, all or none, spending one permit of {@code items} (50 a minute) per todo besides the
     * module limit: a cost known only once the body is read. A refusal imports nothing and spends nothing
     * (the module's permit is given back with the 429).
     */
    @POST
    @Path("import")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "201", description = "Every todo was created, in order.",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = Todo.class)))
    @APIResponse(responseCode = "400", description = "The body is not a non-empty JSON array of {\"title\": \"...\"} "
            + "with titles that are not blank, or holds more todos than the items limit allows at once.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "A title exists already, or appears twice: nothing was imported.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    public Response importAll(List<NewTodo> body) {
        if (body == null || body.isEmpty()) {
            throw badRequest("The body must be a JSON array of at least one {\"title\": \"...\"}.");
        }
        List<String> titles = new ArrayList<>(body.size());
        for (NewTodo item : body) {
            if (item == null || item.title() == null || item.title().isBlank()) {
                throw badRequest("Every item must be {\"title\": \"...\"} with a title that is not blank.");
            }
            titles.add(item.title());
        }
        try {
            limiter.acquire("items", titles.size()); // a refusal throws: the 429 describes "items"
        } catch (IllegalArgumentException tooMany) {
            throw badRequest("Too many todos at once: " + tooMany.getMessage());
        }
        List<Todo> created = todos.createAll(titles).orElseThrow(() -> new WebApplicationException(
                Problem.of(Response.Status.CONFLICT, "A title exists already or appears twice; nothing was imported.")
                        .build()));
        return Response.status(Response.Status.CREATED).entity(created).build();
    }

    /**
     * Sends the todo to the partner (a limit that waits) and answers once the partner has: a share over the partner's
     * limit waits for its turn, up to 5 s, without holding a thread (the client's asynchronous form, returned as it
     * is); one whose turn would come later is refused at once, a 429 describing {@code partner}, and spends nothing.
     */
    @POST
    @Path("{id}/share")
    @APIResponse(responseCode = "204", description = "The partner received the todo.")
    @APIResponse(responseCode = "404", description = "No todo has this id.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "502", description = "The partner answered with an error, or could not be reached.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    public CompletionStage<Response> share(@PathParam("id") long id) {
        Todo todo = todos.find(id).orElseThrow(() -> notFound(id));
        CompletionStage<Void> sent;
        try {
            sent = partner.send(todo);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        // completed with the failure itself, not wrapped: runtimes map a stage's exception as they would a thrown one.
        // 204 said explicitly: a stage completed with null is a 200 on Jersey.
        CompletableFuture<Response> shared = new CompletableFuture<>();
        sent.whenComplete((ignored, failure) -> {
            if (failure == null) {
                shared.complete(Response.noContent().build());
            } else {
                shared.completeExceptionally(shareFailure(failure));
            }
        });
        return shared;
    }

    /** The partner's refusal as it is (the library's 429); anything else the partner did is a 502. */
    private static Throwable shareFailure(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RateLimitExceededException) {
            return cause;
        }
        String detail = cause instanceof WebApplicationException answered && answered.getResponse() != null
                ? "The partner answered " + answered.getResponse().getStatus() + "."
                : "The partner could not be reached.";
        return new WebApplicationException(cause, Problem.of(Response.Status.BAD_GATEWAY, detail).build());
    }

    @DELETE
    @Path("{id}")
    @Authenticated
    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "delete", scope = RateLimitScope.PRINCIPAL)
    @APIResponse(responseCode = "204", description = "Deleted.")
    @APIResponse(responseCode = "401", description = "No authenticated caller: send Authorization: Bearer <name>.",
            headers = @Header(name = "WWW-Authenticate", schema = @Schema(type = SchemaType.STRING)),
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "No todo has this id.",
            content = @Content(mediaType = PROBLEM, schema = @Schema(implementation = Problem.class)))
    public void delete(@PathParam("id") long id) {
        if (!todos.delete(id)) {
            throw notFound(id);
        }
    }

    private static WebApplicationException badRequest(String detail) {
        return new WebApplicationException(Problem.of(Response.Status.BAD_REQUEST, detail).build());
    }

    private static WebApplicationException notFound(long id) {
        return new WebApplicationException(Problem.of(Response.Status.NOT_FOUND, "No todo with id " + id + ".").build());
    }
}
