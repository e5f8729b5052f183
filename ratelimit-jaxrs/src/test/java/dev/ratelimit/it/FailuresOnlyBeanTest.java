package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitPer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bean method's limit that counts only failures, judged by the method's outcome: a return without an exception, a
 * {@code CompletionStage} or a {@code Uni} that completes, gives the permit back; an exception, a stage or a
 * {@code Uni} that fails, keeps it. So successes are never refused, and the limit refuses after
 * {@code permitLimit} failures (whatever the next call would do). A limit per argument counts each normalised value
 * apart.
 */
class FailuresOnlyBeanTest {

    @ApplicationScoped
    public static class Codes {
        @RateLimit(name = "sync-codes", permitLimit = 2, failuresOnly = true)
        public String verify(boolean right) {
            if (!right) {
                throw new IllegalArgumentException("wrong code");
            }
            return "ok";
        }

        @RateLimit(name = "stage-codes", permitLimit = 2, failuresOnly = true)
        public CompletionStage<String> verifyLater(boolean right) {
            return right ? CompletableFuture.completedFuture("ok")
                    : CompletableFuture.failedFuture(new IllegalArgumentException("wrong code"));
        }

        @RateLimit(name = "uni-codes", permitLimit = 2, failuresOnly = true)
        public Uni<String> verifyUni(boolean right) {
            return right ? Uni.createFrom().item("ok") : Uni.createFrom().failure(new IllegalArgumentException("wrong"));
        }

        @RateLimit(name = "sms", permitLimit = 2, per = RateLimitPer.ARGUMENT, failuresOnly = true)
        public String send(@RateLimitKey String phone, boolean delivered) {
            if (!delivered) {
                throw new IllegalStateException("not delivered");
            }
            return "sent";
        }
    }

    @Test
    void aMethodThatReturnsGivesItsPermitBackAndOneThatThrowsKeepsIt() {
        try (Embedded app = Embedded.builder().beans(Codes.class).startCdi()) {
            Codes codes = app.bean(Codes.class);
            for (int i = 0; i < 10; i++) {
                assertThat(codes.verify(true)).as("success %d: never refused", i).isEqualTo("ok");
            }
            assertThatThrownBy(() -> codes.verify(false)).isInstanceOf(IllegalArgumentException.class);
            assertThat(codes.verify(true)).isEqualTo("ok");
            assertThatThrownBy(() -> codes.verify(false)).isInstanceOf(IllegalArgumentException.class);

            assertThatThrownBy(() -> codes.verify(true)).as("two failures: the limit refuses, even a right code")
                    .isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void aCompletionStageThatCompletesGivesItsPermitBackAndOneThatFailsKeepsIt() throws Exception {
        try (Embedded app = Embedded.builder().beans(Codes.class).startCdi()) {
            Codes codes = app.bean(Codes.class);
            for (int i = 0; i < 5; i++) {
                assertThat(codes.verifyLater(true).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("ok");
            }
            for (int i = 0; i < 2; i++) {
                CompletableFuture<String> wrong = codes.verifyLater(false).toCompletableFuture();
                assertThatThrownBy(() -> wrong.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalArgumentException.class);
            }
            CompletableFuture<String> refused = codes.verifyLater(true).toCompletableFuture();
            assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void aUniThatCompletesGivesItsPermitBackAndOneThatFailsKeepsIt() throws Exception {
        try (Embedded app = Embedded.builder().beans(Codes.class).startCdi()) {
            Codes codes = app.bean(Codes.class);
            for (int i = 0; i < 5; i++) {
                assertThat(codes.verifyUni(true).await().atMost(java.time.Duration.ofSeconds(5))).isEqualTo("ok");
            }
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> codes.verifyUni(false).await().atMost(java.time.Duration.ofSeconds(5)))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThatThrownBy(() -> codes.verifyUni(true).await().atMost(java.time.Duration.ofSeconds(5)))
                    .isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void aLimitPerArgumentCountsEachNormalisedValueApart() {
        try (Embedded app = Embedded.builder().beans(Codes.class).startCdi()) {
            Codes codes = app.bean(Codes.class);
            assertThatThrownBy(() -> codes.send("+1 555 0100", false)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> codes.send(" +1 555 0100\u00A0", false)).isInstanceOf(IllegalStateException.class);

            assertThatThrownBy(() -> codes.send("+1 555 0100", true)).as("one number, however it is spaced")
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(codes.send("+1 555 0199", true)).as("another number counts apart").isEqualTo("sent");
        }
    }
}
