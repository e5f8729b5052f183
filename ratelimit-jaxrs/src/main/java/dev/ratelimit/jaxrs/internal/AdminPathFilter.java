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
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Serves the admin resource (docs/operating-limits.md, "The admin API") at {@code ratelimit.admin.path}: before
 * matching, a request under that path is rewritten to the resource's fixed path ({@link AdminSettings#INTERNAL_PATH});
 * a request that names the fixed path itself gets 404, as if nothing were there. With the admin resource off, only the
 * latter. Portable: Jakarta REST maps resources to paths known at compile time, but every runtime lets a pre-matching
 * filter change the URI.
 *
 * <p>A path has many spellings of one resource (RFC 3986, 6.2.2): unreserved characters percent-encoded
 * ({@code /%72atelimit}), dot segments ({@code /todos/../ratelimit}). Runtimes differ in which spelling they match
 * resources on (decoded or not, dot segments removed or not), so this filter decides on the normalised path: every
 * spelling of the admin path is the admin API, with its role check and counted by no limit, whatever the runtime
 * would have matched it to (under a non-default path, such as {@code /todos/admin}, another resource of the
 * application, counted by its limits); every spelling of the fixed path is a 404; and a path that names either only
 * once a reserved character is decoded (an encoded slash, {@code /ratelimit%2Flimits}) is a 404 too, never another
 * resource.
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
        String path = normalize("/" + strip(full.substring(base.length() - (base.endsWith("/") ? 1 : 0))));
        String decoded = removeDotSegments("/" + strip(relative));
        if (under(path, AdminSettings.INTERNAL_PATH) || under(decoded, AdminSettings.INTERNAL_PATH)) {
            request.abortWith(notFound(path));
            return;
        }
        if (!admin.enabled()) {
            return;
        }
        if (!under(path, admin.path())) {
            if (under(decoded, admin.path())) {
                request.abortWith(notFound(path)); // the admin path only once a reserved character is decoded
            }
            return;
        }
        String rest = path.substring(admin.path().length());
        String target = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + AdminSettings.INTERNAL_PATH + rest;
        String query = uri.getRequestUri().getRawQuery();
        // absolute, as the request's own: some runtimes do not resolve a path-only URI against the base
        request.setRequestUri(uri.getBaseUri(), uri.getRequestUri().resolve(target + (query == null ? "" : "?" + query)));
    }

    private static Response notFound(String path) {
        return Response.status(Response.Status.NOT_FOUND).type("application/problem+json")
                .entity(AdminJson.problem(404, "Not Found", "nothing is served at " + path)).build();
    }

    /**
     * {@code path} (raw, from its leading slash) normalised as RFC 3986 6.2.2 says: percent-encoded unreserved
     * characters decoded, dot segments removed. Other percent-encodings stay as they are (an encoded slash is not a
     * slash).
     */
    static String normalize(String path) {
        return removeDotSegments(decodeUnreserved(path));
    }

    private static String decodeUnreserved(String path) {
        if (path.indexOf('%') < 0) {
            return path;
        }
        StringBuilder decoded = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            int value = c == '%' && i + 2 < path.length() ? hex(path.charAt(i + 1), path.charAt(i + 2)) : -1;
            if (value >= 0 && unreserved((char) value)) {
                decoded.append((char) value);
                i += 2;
            } else {
                decoded.append(c);
            }
        }
        return decoded.toString();
    }

    private static int hex(char high, char low) {
        int h = Character.digit(high, 16);
        int l = Character.digit(low, 16);
        return h < 0 || l < 0 ? -1 : h * 16 + l;
    }

    private static boolean unreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~';
    }

    /** RFC 3986 5.2.4 for a path that starts with a slash. */
    static String removeDotSegments(String path) {
        if (!path.contains("/.")) {
            return path;
        }
        Deque<String> kept = new ArrayDeque<>();
        String[] segments = path.split("/", -1);
        for (int i = 1; i < segments.length; i++) {
            String segment = segments[i];
            boolean last = i == segments.length - 1;
            if (segment.equals("..")) {
                kept.pollLast();
            } else if (!segment.equals(".")) {
                kept.addLast(segment);
                continue;
            }
            if (last) {
                kept.addLast(""); // "/a/b/.." is "/a/", a directory
            }
        }
        return "/" + String.join("/", kept);
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
