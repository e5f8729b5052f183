package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code @RateLimit} on plain CDI beans, called outside any HTTP request (docs/declaring-limits.md, "Limits on CDI
 * beans"): the interceptor spends one permit per invocation from each limit covering the method, and a refusal is a
 * {@link RateLimitExceededException} (or a failed {@code CompletionStage}) before the method runs.
 */
class BeanInterceptorTest {

    @ApplicationScoped
    public static class MethodLimited {
        private final AtomicInteger runs = new AtomicInteger();

        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "m")
        public String call() {
            runs.incrementAndGet();
            return "ran";
        }

        public int runs() {
            return runs.get();
        }
    }

    @ApplicationScoped
    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "c")
    public static class ClassLimited {
        public String first() {
            return "first";
        }

        public String second() {
            return "second";
        }
    }

    @ApplicationScoped
    @RateLimit(permitLimit = 3, windowSeconds = 60, name = "cls")
    public static class ClassAndMethodLimited {
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "own")
        public String limited() {
            return "limited";
        }

        public String other() {
            return "other";
        }
    }

    @ApplicationScoped
    @RateLimit(permitLimit = 3, windowSeconds = 60, name = "x")
    @RateLimit(permitLimit = 5, windowSeconds = 60, name = "y")
    public static class TwoClassLimits {
        public String call() {
            return "ran";
        }
    }

    @ApplicationScoped
    public static class TwoMethodLimits {
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "p")
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "q")
        public String call() {
            return "ran";
        }
    }

    @ApplicationScoped
    public static class AsyncLimited {
        private final AtomicInteger runs = new AtomicInteger();

        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "async")
        public CompletionStage<String> call() {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        public int runs() {
            return runs.get();
        }
    }

    @Test
    void methodOverItsLimitThrowsNamingTheLimitAndTheWait() {
        try (Embedded app = Embedded.builder().beans(MethodLimited.class).startCdi()) {
            MethodLimited bean = app.bean(MethodLimited.class);
            assertThat(bean.call()).isEqualTo("ran");
            assertThat(bean.call()).isEqualTo("ran");

            RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class, bean::call);

            assertThat(refused).isNotNull();
            assertThat(refused.getViolatedPolicies()).containsExactly("m");
            assertThat(refused.getRetryAfterSeconds()).isBetween(1L, 60L);
        }
    }

    @Test
    void refusedCallDoesNotRunTheMethod() {
        try (Embedded app = Embedded.builder().beans(MethodLimited.class).startCdi()) {
            MethodLimited bean = app.bean(MethodLimited.class);
            bean.call();
            bean.call();

            assertThatThrownBy(bean::call).isInstanceOf(RateLimitExceededException.class);
            assertThatThrownBy(bean::call).isInstanceOf(RateLimitExceededException.class);

            assertThat(bean.runs()).isEqualTo(2);
        }
    }

    @Test
    void classLimitCoversEveryBusinessMethodFromOneCount() {
        try (Embedded app = Embedded.builder().beans(ClassLimited.class).startCdi()) {
            ClassLimited bean = app.bean(ClassLimited.class);
            assertThat(bean.first()).isEqualTo("first");
            assertThat(bean.second()).isEqualTo("second");

            RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class, bean::first);
            assertThat(refused.getViolatedPolicies()).containsExactly("c");
            assertThatThrownBy(bean::second).isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void classAndMethodLimitsBothApplyAndARefusalSpendsFromNeither() {
        try (Embedded app = Embedded.builder().beans(ClassAndMethodLimited.class).startCdi()) {
            ClassAndMethodLimited bean = app.bean(ClassAndMethodLimited.class);
            bean.limited(); // cls 2 left, own 0 left

            RateLimitExceededException byOwn = catchThrowableOfType(RateLimitExceededException.class, bean::limited);
            assertThat(byOwn.getViolatedPolicies()).containsExactly("own");

            // the refused call spent nothing from "cls": two permits are still there
            assertThat(bean.other()).isEqualTo("other");
            assertThat(bean.other()).isEqualTo("other");
            RateLimitExceededException byClass = catchThrowableOfType(RateLimitExceededException.class, bean::other);
            assertThat(byClass.getViolatedPolicies()).containsExactly("cls");
        }
    }

    @Test
    void twoLimitsOnAClassSpendOnePermitEachPerCall() {
        try (Embedded app = Embedded.builder().beans(TwoClassLimits.class).startCdi()) {
            TwoClassLimits bean = app.bean(TwoClassLimits.class);

            assertThat(callsUntilRefused(bean::call)).isEqualTo(3);

            RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class, bean::call);
            assertThat(refused.getViolatedPolicies()).containsExactly("x");
            assertThat(refused.getDecision().outcomes())
                    .filteredOn(o -> o.policy().name().equals("y"))
                    .singleElement()
                    .satisfies(y -> {
                        assertThat(y.allowed()).isTrue();
                        assertThat(y.remaining()).as("y after three calls").isEqualTo(2);
                    });
        }
    }

    @Test
    void twoLimitsOnAMethodSpendOnePermitEachPerCall() {
        try (Embedded app = Embedded.builder().beans(TwoMethodLimits.class).startCdi()) {
            TwoMethodLimits bean = app.bean(TwoMethodLimits.class);

            assertThat(callsUntilRefused(bean::call)).isEqualTo(3);

            RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class, bean::call);
            assertThat(refused.getViolatedPolicies()).containsExactly("p");
            Outcome q = refused.getDecision().outcomes().stream()
                    .filter(o -> o.policy().name().equals("q")).findFirst().orElseThrow();
            assertThat(q.remaining()).as("q after three calls").isEqualTo(2);
        }
    }

    @Test
    void asyncMethodOverItsLimitReturnsAFailedStageInsteadOfThrowing() throws Exception {
        try (Embedded app = Embedded.builder().beans(AsyncLimited.class).startCdi()) {
            AsyncLimited bean = app.bean(AsyncLimited.class);
            assertThat(bean.call().toCompletableFuture().get()).isEqualTo("ran");

            CompletionStage<String> refused = bean.call(); // must not throw

            CompletableFuture<String> future = refused.toCompletableFuture();
            assertThat(future).isCompletedExceptionally();
            ExecutionException failure = catchThrowableOfType(ExecutionException.class, future::get);
            assertThat(failure.getCause()).isInstanceOf(RateLimitExceededException.class);
            assertThat(((RateLimitExceededException) failure.getCause()).getViolatedPolicies()).containsExactly("async");
            assertThat(bean.runs()).isEqualTo(1);
        }
    }

    /** Calls until the first refusal (at most 100 times); the number of calls allowed. */
    private static int callsUntilRefused(Runnable call) {
        for (int allowed = 0; allowed < 100; allowed++) {
            try {
                call.run();
            } catch (RateLimitExceededException e) {
                return allowed;
            }
        }
        return 100;
    }
}
