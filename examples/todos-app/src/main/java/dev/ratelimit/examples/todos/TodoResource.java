package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitScope;
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
import java.util.List;

/**
 * The todos API (SPEC 11). {@code GET /todos/{id}} and {@code GET /todos/export} have no limit of their
 * own, so the module limit of {@link TodosApplication} covers them; the export's CDI bean carries one.
 */
@Path("/todos")
@ApplicationScoped
public class TodoResource {

    private final TodoRepository todos;
    private final ExportService exports;

    @Inject
    public TodoResource(TodoRepository todos, ExportService exports) {
        this.todos = todos;
        this.exports = exports;
    }

    /** For the container's client proxy only. */
    protected TodoResource() {
        this(null, null);
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 3, windowSeconds = 60)
    public List<Todo> all() {
        return todos.all();
    }

    // A literal segment beats a template in JAX-RS matching, so /todos/export never reaches one().
    @GET
    @Path("export")
    @Produces("text/csv")
    public String export() {
        return exports.export();
    }

    // An id that is not a long fails the @PathParam conversion: 404, as JAX-RS requires for path params.
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Todo one(@PathParam("id") long id) {
        return todos.find(id).orElseThrow(() -> notFound(id));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 5, windowSeconds = 1, name = "burst")
    @RateLimit(permitLimit = 500, windowSeconds = 3600, name = "hourly")
    public Response create(NewTodo body, @Context UriInfo uriInfo) {
        if (body == null || body.title() == null || body.title().isBlank()) {
            throw new WebApplicationException(
                    Problems.of(Response.Status.BAD_REQUEST, "The body must be {\"title\": \"...\"} with a title that is not blank.").build());
        }
        Todo created = todos.create(body.title()).orElseThrow(() -> new WebApplicationException(
                Problems.of(Response.Status.CONFLICT, "A todo titled '" + body.title() + "' exists already.").build()));
        URI location = uriInfo.getAbsolutePathBuilder().path(Long.toString(created.id())).build();
        return Response.created(location).entity(created).build();
    }

    @DELETE
    @Path("{id}")
    @Authenticated
    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "delete", scope = RateLimitScope.PRINCIPAL)
    public void delete(@PathParam("id") long id) {
        if (!todos.delete(id)) {
            throw notFound(id);
        }
    }

    private static WebApplicationException notFound(long id) {
        return new WebApplicationException(Problems.of(Response.Status.NOT_FOUND, "No todo with id " + id + ".").build());
    }
}
