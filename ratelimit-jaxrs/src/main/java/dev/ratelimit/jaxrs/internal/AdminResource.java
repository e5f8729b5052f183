package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.RateLimitAdmin;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.core.live.LimitAdmin;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.function.Function;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The admin API over HTTP, served at {@code ratelimit.admin.path} ({@link AdminPathFilter} rewrites it
 * here) when {@code ratelimit.admin.enabled=true}. A caller without a principal gets 401, one without
 * {@code ratelimit.admin.role} 403; no limit counts these requests ({@code RateLimitFeature} binds nothing here).
 * JSON bodies, errors as RFC 9457 problems; every answer is in the OpenAPI document (ratelimit-openapi adds it).
 *
 * <p>Every method is {@code @Operation(hidden = true)}: a runtime that scans the library's jar for resources (Open
 * Liberty does) would otherwise publish this class's fixed path in the application's OpenAPI document, whether the
 * admin API is on or off and whether or not the application uses ratelimit-openapi's filter (docs/openapi.md, "The
 * admin API"). The annotation is MicroProfile OpenAPI's own, read by every implementation, and no configuration of
 * the application can undo it; where MicroProfile OpenAPI is absent, the JVM ignores an annotation it cannot load.
 */
@ApplicationScoped
@Path(AdminSettings.INTERNAL_PATH)
public class AdminResource {

    private static final String JSON = "application/json";
    private static final String PROBLEM = "application/problem+json";
    private static final int MAX_TOP = 100;

    // injected, not looked up: a container that removes unused beans (Quarkus) keeps what is injected
    @Inject
    RateLimitAdmin admin;

    @Inject
    RateLimitRuntime runtime;

    @Operation(hidden = true)
    @GET
    @Path("limits")
    public Response limits(@Context SecurityContext security) {
        Response denied = denied(security);
        return denied != null ? denied : ok(AdminJson.limits(admin.limits()));
    }

    @Operation(hidden = true)
    @GET
    @Path("limits/{name}/partitions/{partition}")
    public Response count(@PathParam("name") String name, @PathParam("partition") String partition,
                          @QueryParam("plan") String plan, @Context SecurityContext security) {
        Response denied = denied(security);
        if (denied != null) {
            return denied;
        }
        try {
            CountState state = admin.count(name, partition, blankToNull(plan));
            return ok(AdminJson.count(name, partition, blankToNull(plan), state));
        } catch (IllegalArgumentException e) {
            return problem(404, "Not Found", e.getMessage());
        } catch (RateLimitStoreException e) {
            return problem(503, "Service Unavailable", e.getMessage());
        }
    }

    @Operation(hidden = true)
    @DELETE
    @Path("limits/{name}/partitions/{partition}")
    public Response reset(@PathParam("name") String name, @PathParam("partition") String partition,
                          @QueryParam("plan") String plan, @Context SecurityContext security) {
        Response denied = denied(security);
        if (denied != null) {
            return denied;
        }
        try {
            Principal caller = security.getUserPrincipal();
            admin.reset(name, partition, blankToNull(plan), "\"" + caller.getName() + "\" over HTTP");
            return Response.noContent().build();
        } catch (IllegalArgumentException e) {
            return problem(404, "Not Found", e.getMessage());
        } catch (RateLimitStoreException e) {
            return problem(503, "Service Unavailable", e.getMessage());
        }
    }

    /**
     * A count of a limit per argument, found by the value it counts (an account): the digest is computed here, and
     * the answer names the partition, never the value.
     */
    @Operation(hidden = true)
    @GET
    @Path("limits/{name}/partitions")
    public Response countByKey(@PathParam("name") String name, @QueryParam("key") String key,
                               @QueryParam("plan") String plan, @Context SecurityContext security) {
        return byKey(name, key, security, "read", partition -> count(name, partition, plan, security));
    }

    /** Starts the count of a limit per argument afresh, found by the value it counts. */
    @Operation(hidden = true)
    @DELETE
    @Path("limits/{name}/partitions")
    public Response resetByKey(@PathParam("name") String name, @QueryParam("key") String key,
                               @QueryParam("plan") String plan, @Context SecurityContext security) {
        return byKey(name, key, security, "start afresh", partition -> reset(name, partition, plan, security));
    }

    /**
     * What {@code then} answers for the partition of {@code key}, once the caller may ask, the key is given and the
     * limit counts per argument: 400 without a key (or with a blank one), 404 naming a limit nothing declares, 400
     * naming a limit that does not count per argument (a digest would name a partition it never counts in).
     */
    private Response byKey(String name, String key, SecurityContext security, String what,
                           Function<String, Response> then) {
        Response denied = denied(security);
        if (denied != null) {
            return denied;
        }
        if (key == null || key.isBlank()) {
            return problem(400, "Bad Request", "ratelimit: give the value whose count to " + what + ": ?key=<value>");
        }
        String partition;
        try {
            partition = admin.keyPartition(name, key);
        } catch (LimitAdmin.UnknownLimitException e) {
            return problem(404, "Not Found", e.getMessage());
        } catch (IllegalArgumentException e) {
            return problem(400, "Bad Request", e.getMessage());
        }
        return then.apply(partition);
    }

    @Operation(hidden = true)
    @GET
    @Path("limits/{name}/refused")
    public Response refused(@PathParam("name") String name, @QueryParam("top") String top,
                            @Context SecurityContext security) {
        Response denied = denied(security);
        if (denied != null) {
            return denied;
        }
        int n;
        try {
            n = top == null || top.isBlank() ? 10 : Integer.parseInt(top.strip());
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n < 1 || n > MAX_TOP) {
            return problem(400, "Bad Request", "ratelimit: top must be an integer from 1 to " + MAX_TOP + ", was \""
                    + top + "\"");
        }
        try {
            return ok(AdminJson.refused(name, admin.refused(name, n)));
        } catch (IllegalArgumentException e) {
            return problem(404, "Not Found", e.getMessage());
        }
    }

    /**
     * 404 when the admin resource is off; 401 without a caller, 403 without the role; else null. (A request that
     * names this class's path itself never gets here: {@link AdminPathFilter} answers it with 404.)
     */
    private Response denied(SecurityContext security) {
        AdminSettings settings = runtime.adminSettings();
        if (!settings.enabled()) {
            return problem(404, "Not Found", "nothing is served here");
        }
        if (security == null || security.getUserPrincipal() == null) {
            return Response.status(401).type(PROBLEM).header("WWW-Authenticate", "Bearer")
                    .entity(AdminJson.problem(401, "Unauthorized", "the rate-limit admin API needs an authenticated "
                            + "caller in the role \"" + settings.role() + "\"")).build();
        }
        if (!security.isUserInRole(settings.role())) {
            return problem(403, "Forbidden", "the rate-limit admin API needs the role \"" + settings.role() + "\"");
        }
        return null;
    }

    private static Response ok(String json) {
        return Response.ok(json, JSON).build();
    }

    private static Response problem(int status, String title, String detail) {
        return Response.status(status).type(PROBLEM).entity(AdminJson.problem(status, title, detail)).build();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }
}
