package dev.ratelimit.benchmarks.quarkus.headers1;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes on every response one of the five headers of the "headers" app ({@code RateLimit-Limit}), the same way:
 * beside that app, what a response filter that touches the headers costs against what each further header costs.
 */
@Provider
public class ConstantHeader implements ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        List<Object> values = new ArrayList<>(1);
        values.add("100000000");
        response.getHeaders().put("RateLimit-Limit", values);
    }
}
