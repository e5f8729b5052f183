package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class DecisionsTest {

    private static final RateLimitDecision DECISION = RateLimitDecision.of("p",
            new Outcome(new RateLimitPolicy("x", 1, 1, RateLimitScope.TRANSPORT), true, 0, 1, 1L));

    @Test
    void completedStageGivesItsDecision() {
        assertThat(Decisions.await(CompletableFuture.completedFuture(DECISION))).isSameAs(DECISION);
    }

    @Test
    void failedStageBecomesAStoreFailureCarryingTheCause() {
        IOException down = new IOException("connection refused");

        assertThatThrownBy(() -> Decisions.await(CompletableFuture.failedFuture(down)))
                .isInstanceOf(Decisions.StoreFailedException.class)
                .hasCause(down)
                .hasMessageContaining("connection refused");
    }

    @Test
    void interruptedWaitBecomesAStoreFailureAndKeepsTheInterrupt() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> Decisions.await(new CompletableFuture<>()))
                    .isInstanceOf(Decisions.StoreFailedException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
