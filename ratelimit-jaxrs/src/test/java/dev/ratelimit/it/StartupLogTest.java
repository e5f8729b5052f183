package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * What the library says at start-up: one INFO line naming the store and the limited CDI methods, and one
 * WARNING per pair of methods whose differently-sized limits share a name, never per request.
 */
class StartupLogTest {

    @ApplicationScoped
    public static class LimitedService {
        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "svc")
        public String work() {
            return "work";
        }

        public String unlimited() {
            return "free";
        }
    }

    @Path("/plain")
    public static class Plain {
        @GET
        @RateLimit(permitLimit = 50, windowSeconds = 60, name = "plain")
        public String get() {
            return "ok";
        }
    }

    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class NamedStore implements RateLimitStore {
        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            throw new UnsupportedOperationException("not called by this test");
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public String toString() {
            return "NamedStore-for-the-start-up-line";
        }
    }

    @Path("/shared")
    public static class SharedNames {
        @GET
        @Path("one")
        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "shared")
        public String one() {
            return "one";
        }

        @GET
        @Path("two")
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "shared")
        public String two() {
            return "two";
        }

        @GET
        @Path("three")
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "same-size")
        public String three() {
            return "three";
        }

        @GET
        @Path("four")
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "same-size")
        public String four() {
            return "four";
        }
    }

    @ApplicationScoped
    public static class SharedNameBeans {
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "bean-shared")
        public String first() {
            return "first";
        }

        @RateLimit(permitLimit = 2, windowSeconds = 30, name = "bean-shared")
        public String second() {
            return "second";
        }
    }

    @Test
    void startUpLogsOneInfoLineNamingTheStoreAndTheLimitedCdiMethods() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(LimitedService.class).resources(Plain.class).start()) {
            app.get("/plain");
            app.get("/plain");
            app.bean(LimitedService.class).work();
            app.bean(LimitedService.class).unlimited();

            List<String> info = log.messages(Level.INFO);

            assertThat(info).singleElement().asString()
                    .startsWith("ratelimit:")
                    .contains("InProcessRateLimitStore")
                    .contains("LimitedService.work() [\"svc\" 2/60s]")
                    .doesNotContain("LimitedService.unlimited()");
        }
    }

    @Test
    void startUpLineNamesAnAlternativeStore() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(NamedStore.class).startCdi()) {

            assertThat(log.messages(Level.INFO)).singleElement().asString()
                    .startsWith("ratelimit:")
                    .contains("NamedStore-for-the-start-up-line")
                    .doesNotContain("InProcessRateLimitStore");
        }
    }

    @Test
    void resourceMethodsSharingANameWithDifferentSizesAreWarnedOnceNamingBoth() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().resources(SharedNames.class).start()) {
            for (int i = 0; i < 3; i++) {
                app.get("/shared/one");
                app.get("/shared/two");
                app.get("/shared/three");
                app.get("/shared/four");
            }

            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains("\"shared\"")
                    .contains("SharedNames.one()")
                    .contains("SharedNames.two()");
        }
    }

    @Test
    void beanMethodsSharingANameWithDifferentSizesAreWarnedOnceAtStartUp() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(SharedNameBeans.class).startCdi()) {
            assertThat(log.messages(Level.WARNING)).as("at start-up").singleElement().asString()
                    .contains("\"bean-shared\"")
                    .contains("SharedNameBeans.first()")
                    .contains("SharedNameBeans.second()");

            SharedNameBeans beans = app.bean(SharedNameBeans.class);
            beans.first();
            beans.second();

            assertThat(log.messages(Level.WARNING)).as("after calls").hasSize(1);
        }
    }
}
