package dev.ratelimit.core.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.testing.LogRecords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint of {@code ratelimit.key-secret} that the engine leaves in a shared store when it is built: an HMAC,
 * alike for one secret and unlike for another, neither the secret nor its SHA-256; asked of a shared store only when
 * the secret is set; another fingerprint kept there fails the engine naming the key;
 * a store that cannot answer costs a warning, one that cannot keep it a line, and the engine starts.
 */
class KeySecretFingerprintTest {

    private static final String SECRET = "a-secret-of-the-fleet-0123";
    private final LogRecords logged = LogRecords.on(LogRecords.LIBRARY);

    @AfterEach
    void forget() {
        logged.close();
    }

    @Test
    void theFingerprintIsAnHmacAlikeForOneSecretUnlikeForAnotherNeitherTheSecretNorItsHash() throws Exception {
        String fingerprint = KeySecretFingerprint.of(SECRET);
        byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(SECRET.getBytes(StandardCharsets.UTF_8));

        assertThat(fingerprint).isEqualTo(KeySecretFingerprint.of(SECRET)).hasSize("hmac-sha256:".length() + 43)
                .isNotEqualTo(KeySecretFingerprint.of(SECRET + "x"))
                .doesNotContain(SECRET)
                .doesNotContain(Base64.getUrlEncoder().withoutPadding().encodeToString(sha256));
    }

    @Test
    void aSharedStoreIsAskedOnlyWhenTheSecretIsSetAndAnotherFingerprintFailsTheEngineNamingTheKey() {
        AtomicReference<String> kept = new AtomicReference<>();
        AtomicInteger asked = new AtomicInteger();
        RateLimitStore shared = store(mine -> {
            asked.incrementAndGet();
            kept.compareAndSet(null, mine);
            return CompletableFuture.completedFuture(kept.get());
        });

        RateLimitEngine.builder(RateLimitSettings.of(Map.of()), shared).build();
        assertThat(asked).as("no secret: nothing written").hasValue(0);
        RateLimitEngine.builder(settings(SECRET), shared).build();
        RateLimitEngine.builder(settings(SECRET), shared).build();
        assertThat(kept).hasValue(KeySecretFingerprint.of(SECRET));

        assertThatThrownBy(() -> RateLimitEngine.builder(settings("another-secret-0123456789"), shared).build())
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.key-secret differs").hasMessageContaining("shared-test")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain("another-secret"));
        assertThat(asked).hasValue(3);
    }

    @Test
    void aStoreThatCannotAnswerCostsOneWarningAndOneThatCannotKeepItOneLineAndTheEngineStarts() {
        RateLimitEngine.builder(settings(SECRET), store(mine -> CompletableFuture.failedFuture(new IOException("down"))))
                .build();
        RateLimitEngine.builder(settings(SECRET), store(mine -> CompletableFuture.failedFuture(
                new UnsupportedOperationException("no keys")))).build();

        assertThat(logged.records()).filteredOn(r -> r.getMessage().contains("ratelimit.key-secret"))
                .extracting(LogRecord::getLevel).containsExactly(Level.WARNING, Level.INFO);
    }

    private static RateLimitSettings settings(String secret) {
        return RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, secret));
    }

    /** A store shared by instances as far as the engine can tell, that keeps fingerprints as {@code keep} says. */
    private static RateLimitStore store(Function<String, CompletionStage<String>> keep) {
        return new RateLimitStore() {
            @Override
            public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletionStage<Void> release(RateLimitDecision decision) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletionStage<String> keySecretFingerprint(String fingerprint) {
                return keep.apply(fingerprint);
            }

            @Override
            public String storeName() {
                return "shared-test";
            }
        };
    }
}
