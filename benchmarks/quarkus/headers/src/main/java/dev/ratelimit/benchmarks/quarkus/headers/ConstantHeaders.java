package dev.ratelimit.benchmarks.quarkus.headers;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes on every response the five headers ratelimit writes on an allowed request of this benchmark
 * (docs/responses.md, "Headers": the same names and values as the ratelimit app's, whose limit is 100 000 000 a
 * minute), formatted once, the way the library puts them (a one-element list per name). The app is otherwise the "none"
 * app: the difference is what the headers cost the runtime, which no limiter that sends them can avoid.
 * {@code -Dbenchmark.headers=N} writes the first N of them only (1: what a response filter that touches the headers
 * costs, against each further header).
 */
@Provider
public class ConstantHeaders implements ContainerResponseFilter {

    private static final String[][] HEADERS = {
        {"RateLimit-Limit", "100000000"},
        {"RateLimit-Remaining", "99999999"},
        {"RateLimit-Reset", "60"},
        {"RateLimit-Policy", "\"item\";q=100000000;w=60"},
        {"RateLimit", "\"item\";r=99999999;t=60"},
    };
    private static final int COUNT = Math.min(HEADERS.length, Integer.getInteger("benchmark.headers", HEADERS.length));

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        MultivaluedMap<String, Object> headers = response.getHeaders();
        for (int i = 0; i < COUNT; i++) {
            headers.put(HEADERS[i][0], single(HEADERS[i][1]));
        }
    }

    private static List<Object> single(String value) {
        List<Object> values = new ArrayList<>(1);
        values.add(value);
        return values;
    }
}
