package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.config.AdminSettings;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.Provider;

/**
 * Serves the admin resource (SPEC 19) at {@code ratelimit.admin.path}: before matching, a request under that path
 * is rewritten to the resource's fixed path ({@link AdminSettings#INTERNAL_PATH}); a request that names the fixed
 * path itself gets 404, as if nothing were there. With the admin resource off, only the latter. Portable: Jakarta
 * REST maps resources to paths known at compile time, but every runtime lets a pre-matching filter change the URI.
 */
@Provider
@PreMatching
public class AdminPathFilter implements ContainerRequestFilter {

    /** Read at most once per deployment; a record, so a racy read sees it whole (a second lookup at worst). */
    private AdminSettings settings;

    @Override
    public void filter(ContainerRequestContext request) {
        UriInfo uri = request.getUriInfo();
        AdminSettings admin = settings();
        // every request passes here: one look at the path relative to the base (decoded: a string the runtimes keep;
        // the request URI would be built and parsed on Quarkus REST, which has no undecoded path), no allocation,
        // unless it may be the admin API's
        String relative = uri.getPath();
        if (relative == null || (!mayName(relative, AdminSettings.INTERNAL_PATH)
                && !(admin.enabled() && mayName(relative, admin.path())))) {
            return;
        }
        String full = uri.getRequestUri().getRawPath();
        if (full == null) {
            return;
        }
        String base = uri.getBaseUri().getRawPath();
        if (base == null || !full.startsWith(base.endsWith("/") ? base.substring(0, base.length() - 1) : base)) {
            return;
        }
        String path = "/" + strip(full.substring(base.length() - (base.endsWith("/") ? 1 : 0)));
        if (under(path, AdminSettings.INTERNAL_PATH)) {
            request.abortWith(Response.status(Response.Status.NOT_FOUND).type("application/problem+json")
                    .entity(AdminJson.problem(404, "Not Found", "nothing is served at " + path)).build());
            return;
        }
        if (!admin.enabled() || !under(path, admin.path())) {
            return;
        }
        String rest = path.substring(admin.path().length());
        String target = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + AdminSettings.INTERNAL_PATH + rest;
        String query = uri.getRequestUri().getRawQuery();
        // absolute, as the request's own: some runtimes do not resolve a path-only URI against the base
        request.setRequestUri(uri.getBaseUri(), uri.getRequestUri().resolve(target + (query == null ? "" : "?" + query)));
    }

    /** True when {@code relative} (with its leading slash or without, by runtime) may lie under {@code path}. */
    private static boolean mayName(String relative, String path) {
        return relative.contains(path) || relative.regionMatches(0, path, 1, path.length() - 1);
    }

    private static String strip(String path) {
        return path.startsWith("/") ? path.substring(1) : path;
    }

    private static boolean under(String path, String prefix) {
        return path.equals(prefix) || path.startsWith(prefix + "/");
    }

    private AdminSettings settings() {
        AdminSettings s = settings;
        if (s == null) {
            s = CDI.current().select(RateLimitRuntime.class).get().adminSettings();
            settings = s;
        }
        return s;
    }
}
