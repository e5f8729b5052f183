package dev.ratelimit.jaxrs.internal.decide;

import dev.ratelimit.internal.engine.Decisions;
import dev.ratelimit.internal.engine.FailureLog;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A store that failed inside a bean method's limit: 500 with an empty body, logged (rate limited) naming the limits. */
@Provider
@Priority(Priorities.USER + 1000)
public class StoreFailureMapper implements ExceptionMapper<Decisions.StoreFailedException> {

    private static final FailureLog STORE_FAILURES = new FailureLog(System.getLogger("dev.ratelimit"));

    @Override
    public Response toResponse(Decisions.StoreFailedException exception) {
        STORE_FAILURES.failed("ratelimit: " + exception.getMessage() + "; the request was answered 500",
                exception.getCause());
        return Response.serverError().build();
    }
}
