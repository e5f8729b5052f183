package dev.ratelimit.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.notNullValue;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitScope;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With Quarkus Security (proactive authentication, the default), the caller is known before Quarkus REST runs any
 * filter: the limits of a blocking method are decided on the event loop, and the TRANSPORT limit of an authenticated
 * caller still counts under its principal; Quarkus' own authorization ({@code @RolesAllowed}) answers before the
 * PRINCIPAL limits count.
 */
class PrincipalOnTheEventLoopTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class,
                    ThreadRecordingStore.class, HeaderAuthentication.class, ReportResource.class));

    @Test
    void theTransportLimitOfAnAuthenticatedCallerCountsUnderItsPrincipalOnTheEventLoop() {
        String user = "user-" + UUID.randomUUID();
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().header("X-User", user).get("/items/1").then().statusCode(200)
                    .header("RateLimit-Remaining", String.valueOf(remaining));
        }
        given().header("X-User", user).get("/items/1").then().statusCode(429);
        given().header("X-User", user + "-other").get("/items/1").then().statusCode(200)
                .header("RateLimit-Remaining", "2");
        assertThat(ThreadRecordingStore.askedOnEventLoop("sub:" + user)).as("asked on an event-loop thread, by principal")
                .isTrue();
    }

    @Test
    void anAnonymousCallerIsDecidedOnTheEventLoopToo() {
        // Quarkus Security resolved the anonymous identity before the filters: reading it there does not block
        given().get("/items/2").then().statusCode(200).header("RateLimit-Remaining", notNullValue());
    }

    @Test
    void aCallerThatAuthorizationRefusesSpendsNothingOfItsPrincipalLimit() {
        String user = "user-" + UUID.randomUUID();
        given().header("X-User", user).get("/report").then().statusCode(403);
        given().header("X-User", user).get("/report").then().statusCode(403);
        given().header("X-User", user).header("X-Role", "reader").get("/report").then().statusCode(200)
                .header("RateLimit-Remaining", "0");
        given().header("X-User", user).header("X-Role", "reader").get("/report").then().statusCode(429);
        assertThat(ThreadRecordingStore.askedOnEventLoop("sub:" + user)).as("asked on an event-loop thread").isTrue();
    }

    /** A blocking method for readers, one call a minute per caller, after authorization (test only). */
    @Path("/report")
    public static class ReportResource {
        @GET
        @RolesAllowed("reader")
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "report", scope = RateLimitScope.PRINCIPAL)
        public String report() {
            return "report";
        }
    }

    /** {@code X-User: <name>} authenticates as {@code <name>}, {@code X-Role: <role>} gives it a role (test only). */
    @ApplicationScoped
    public static class HeaderAuthentication implements HttpAuthenticationMechanism {
        @Override
        public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
            String user = context.request().getHeader("X-User");
            return user == null ? Uni.createFrom().optional(Optional.empty())
                    : Uni.createFrom().item(QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(user))
                            .addRoles(context.request().headers().contains("X-Role")
                                    ? Set.of(context.request().getHeader("X-Role")) : Set.of())
                            .build());
        }

        @Override
        public Uni<ChallengeData> getChallenge(RoutingContext context) {
            return Uni.createFrom().optional(Optional.empty());
        }

        @Override
        public Set<Class<? extends io.quarkus.security.identity.request.AuthenticationRequest>> getCredentialTypes() {
            return Set.of();
        }
    }
}
