package dev.ratelimit.jaxrs.internal.decide;

import dev.ratelimit.internal.engine.Decisions;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A store that failed inside a bean method's limit: 500 with an empty body (the interceptor logged it). */
@Provider
@Priority(Priorities.USER + 1000)
public class StoreFailureMapper implements ExceptionMapper<Decisions.StoreFailedException> {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    @Override
    public Response toResponse(Decisions.StoreFailedException exception) {
        LOG.log(System.Logger.Level.ERROR, exception.getMessage(), exception.getCause());
        return Response.serverError().build();
    }
}
