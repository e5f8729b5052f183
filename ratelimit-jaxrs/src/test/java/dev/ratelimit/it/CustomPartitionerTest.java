package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitCaller;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** An application replaces the partitioner with an enabled {@code @Alternative} bean. */
class CustomPartitionerTest {

    /** One count per tenant, named by a header the (here imaginary) gateway sets. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class TenantPartitioner implements RateLimitPartitioner {
        @Override
        public String partition(RateLimitCaller caller) {
            return "tenant:" + Objects.requireNonNullElse(caller.header("X-Tenant"), "none");
        }
    }

    @Path("/tenant")
    public static class PerTenant {
        @GET
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "per-tenant")
        public String get() {
            return "ok";
        }
    }

    @Test
    void alternativePartitionerDecidesWhichCountARequestSpendsFrom() {
        // no ratelimit.partition-header: the default partitioner would put every request in "anonymous"
        try (Embedded app = Embedded.builder().beans(TenantPartitioner.class).resources(PerTenant.class).start()) {
            assertThat(app.get("/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(200);
            assertRefusedBy(app.get("/tenant", "X-Tenant", "acme"), "per-tenant", 1, 60);

            assertThat(app.get("/tenant", "X-Tenant", "globex").statusCode()).isEqualTo(200);
            assertThat(app.get("/tenant", "x-tenant", "initech").statusCode()).isEqualTo(200);
            assertThat(app.get("/tenant").statusCode()).isEqualTo(200);
        }
    }
}
