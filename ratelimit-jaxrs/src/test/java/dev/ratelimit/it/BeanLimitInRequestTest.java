package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertRefusedBy;
import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A limited CDI bean method reached from a resource method spends from the request's
 * partition, and its refusal propagates as the same 429 with headers; it gives back what the request's
 * own limits spent. A bean limit is spent once per invocation, and reported as one limit.
 */
class BeanLimitInRequestTest {

    @ApplicationScoped
    public static class ReportService {
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "report")
        public String report() {
            return "report";
        }
    }

    @Path("/report")
    @RequestScoped
    public static class UnlimitedReportResource {
        @Inject
        ReportService reports;

        @GET
        public String get() {
            return reports.report();
        }
    }

    @Path("/outer")
    @RequestScoped
    public static class LimitedReportResource {
        @Inject
        ReportService reports;

        @GET
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "outer")
        public String get() {
            return reports.report();
        }

        @GET
        @Path("/alone")
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "outer")
        public String alone() {
            return "alone";
        }
    }

    @ApplicationScoped
    public static class LookupService {
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "lookup")
        public String lookup(String key) {
            return key;
        }
    }

    @Path("/twice")
    @RequestScoped
    public static class CallsTwice {
        @Inject
        LookupService lookups;

        @GET
        public String get() {
            return lookups.lookup("a") + lookups.lookup("b");
        }
    }

    @Test
    void beanLimitReachedFromUnlimitedResourceMethodPartitionsLikeTheRequest() {
        try (Embedded app = Embedded.builder()
                .config("ratelimit.partition-header", "X-Api-Key")
                .beans(ReportService.class, UnlimitedReportResource.class)
                .resources(UnlimitedReportResource.class)
                .start()) {

            HttpResponse<String> allowed = app.get("/report", "X-Api-Key", "alice");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.body()).isEqualTo("report");
            assertThat(header(allowed, "RateLimit-Policy")).isEqualTo("\"report\";q=1;w=60");
            assertThat(header(allowed, "RateLimit-Remaining")).isEqualTo("0");

            HttpResponse<String> refused = app.get("/report", "X-Api-Key", "alice");
            assertRefusedBy(refused, "report", 1, 60);
            assertThat(header(refused, "Content-Type")).startsWith("application/problem+json");
            assertThat(refused.body()).contains("\"violated-policies\":[\"report\"]");

            // another key is another count; so is no key at all ("anonymous")
            assertThat(app.get("/report", "X-Api-Key", "bob").statusCode()).isEqualTo(200);
            assertThat(app.get("/report").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void beanLimitRefusalGivesBackThePermitOfTheResourceMethodLimit() {
        try (Embedded app = Embedded.builder()
                .beans(ReportService.class, LimitedReportResource.class)
                .resources(LimitedReportResource.class)
                .start()) {

            assertThat(app.get("/outer").statusCode()).isEqualTo(200);      // outer 4 left, report 0 left
            assertRefusedBy(app.get("/outer"), "report", 1, 60);          // outer spent, then given back
            assertRefusedBy(app.get("/outer"), "report", 1, 60);

            // 3 left: the first request spent "outer" once (filter, not again by the interceptor on this CDI-bean
            // resource), the refused ones gave theirs back, and this one spends one
            HttpResponse<String> alone = app.get("/outer/alone");
            assertThat(alone.statusCode()).isEqualTo(200);
            assertThat(header(alone, "RateLimit-Remaining")).as("outer after two allowed requests").isEqualTo("3");
        }
    }

    @Test
    void beanLimitCalledTwiceInOneRequestSpendsTwiceAndIsReportedAsOneLimit() {
        try (Embedded app = Embedded.builder()
                .beans(LookupService.class, CallsTwice.class)
                .resources(CallsTwice.class)
                .start()) {

            HttpResponse<String> response = app.get("/twice");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("ab");
            assertThat(header(response, "RateLimit-Remaining")).as("lookup after two invocations").isEqualTo("3");
            assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"lookup\";q=5;w=60");
            assertThat(header(response, "RateLimit")).isEqualTo("\"lookup\";r=3;t=60");
        }
    }
}
