package dev.ratelimit.jaxrs;

import dev.ratelimit.core.RateLimitStoreException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A store that could not decide a bean limit or a programmatic call inside a request, with
 * {@code ratelimit.store.on-failure=fail}: 500 with an empty body. The engine has logged the outage (once).
 */
@Provider
@Priority(Priorities.USER + 1000)
public class StoreFailureMapper implements ExceptionMapper<RateLimitStoreException> {

    @Override
    public Response toResponse(RateLimitStoreException exception) {
        return Response.serverError().build();
    }
}
