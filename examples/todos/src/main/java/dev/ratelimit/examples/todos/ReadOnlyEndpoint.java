package dev.ratelimit.examples.todos;

import java.io.CharConversionException;
import java.io.IOException;
import java.io.OutputStream;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.glassfish.grizzly.http.util.HttpStatus;

/**
 * A document the embedded server serves beside Jersey ({@code /openapi}, {@code /metrics}): a Grizzly
 * {@link HttpHandler} mounted at its own context path, not a Jakarta REST resource, so that no rate limit
 * covers it and the OpenAPI document does not describe it. {@code GET} and {@code HEAD} of the path (with or
 * without a trailing slash); 404 below it, 405 with {@code Allow} for other methods.
 */
abstract class ReadOnlyEndpoint extends HttpHandler {

    private final String path;

    ReadOnlyEndpoint(String name, String path) {
        super(name);
        this.path = path;
    }

    /** What to answer {@code request} with. */
    abstract Document document(Request request);

    /**
     * @param contentType its media type
     * @param body        its bytes
     * @param noStore     true for a document that changes from one request to the next
     */
    record Document(String contentType, byte[] body, boolean noStore) {
    }

    @Override
    public final void service(Request request, Response response) throws IOException {
        String requested;
        try {
            requested = request.getDecodedRequestURI();
        } catch (CharConversionException e) {
            requested = request.getRequestURI();
        }
        if (!path.equals(requested) && !(path + "/").equals(requested)) {
            empty(response, HttpStatus.NOT_FOUND_404);
            return;
        }
        Method method = request.getMethod();
        if (!Method.GET.equals(method) && !Method.HEAD.equals(method)) {
            response.setHeader("Allow", "GET, HEAD");
            empty(response, HttpStatus.METHOD_NOT_ALLOWED_405);
            return;
        }
        Document document = document(request);
        response.setStatus(HttpStatus.OK_200);
        response.setContentType(document.contentType());
        if (document.noStore()) {
            response.setHeader("Cache-Control", "no-store");
        }
        response.setContentLength(document.body().length);
        if (Method.HEAD.equals(method)) {
            return; // the length a GET would have, no body
        }
        try (OutputStream out = response.getOutputStream()) {
            out.write(document.body());
        }
    }

    private static void empty(Response response, HttpStatus status) {
        response.setStatus(status);
        response.setContentLength(0);
    }
}
