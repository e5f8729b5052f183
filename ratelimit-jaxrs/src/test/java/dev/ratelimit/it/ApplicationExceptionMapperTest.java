package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertRefusedBy;
import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitExceededException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** An application's own mapper for the refusal takes over the body; the headers are still added. */
class ApplicationExceptionMapperTest {

    @Path("/limited")
    public static class Limited {
        @GET
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "mapped")
        public String get() {
            return "ok";
        }
    }

    @Provider
    public static class OwnRefusalMapper implements ExceptionMapper<RateLimitExceededException> {
        @Override
        public Response toResponse(RateLimitExceededException exception) {
            return Response.status(429).type(MediaType.TEXT_PLAIN_TYPE)
                    .entity("slow down: " + exception.getViolatedPolicies()).build();
        }
    }

    @Test
    void applicationMapperWritesTheBodyAndTheRateLimitHeadersAreStillAdded() {
        try (Embedded app = Embedded.builder().resources(Limited.class, OwnRefusalMapper.class).start()) {
            assertThat(app.get("/limited").statusCode()).isEqualTo(200);

            HttpResponse<String> refused = app.get("/limited");

            assertThat(refused.body()).isEqualTo("slow down: [mapped]");
            assertThat(header(refused, "Content-Type")).startsWith("text/plain");
            assertRefusedBy(refused, "mapped", 1, 60);
        }
    }
}
