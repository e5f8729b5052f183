package dev.ratelimit.benchmarks.quarkus.headers;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes on every response the five headers ratelimit writes on an allowed request of this benchmark (SPEC 4: the
 * same names and values as the ratelimit app's, whose limit is 100 000 000 a minute), formatted once, the way the
 * library puts them (a one-element list per name). The app is otherwise the "none" app: the difference is what the headers
 * cost the runtime, which no limiter that sends them can avoid.
 */
@Provider
public class ConstantHeaders implements ContainerResponseFilter {

    private static final String LIMIT = "100000000";
    private static final String REMAINING = "99999999";
    private static final String RESET = "60";
    private static final String POLICY = "\"item\";q=100000000;w=60";
    private static final String STATE = "\"item\";r=99999999;t=60";

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        MultivaluedMap<String, Object> headers = response.getHeaders();
        headers.put("RateLimit-Limit", single(LIMIT));
        headers.put("RateLimit-Remaining", single(REMAINING));
        headers.put("RateLimit-Reset", single(RESET));
        headers.put("RateLimit-Policy", single(POLICY));
        headers.put("RateLimit", single(STATE));
    }

    private static List<Object> single(String value) {
        List<Object> values = new ArrayList<>(1);
        values.add(value);
        return values;
    }
}
