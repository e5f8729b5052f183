package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Instances on one real Redis digest the keys of {@code per = ARGUMENT} limits with one {@code ratelimit.key-secret}
 * (docs/login-protection.md, "One secret for every instance"): each leaves a fingerprint of its secret under
 * {@code <key-prefix>key-secret-fingerprint}; an instance whose secret differs fails start-up naming the key and
 * neither secret; the fingerprint is neither the secret nor a plain hash of it; without a secret nothing is written.
 */
class KeySecretFingerprintTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String SECRET = "the-first-secret-of-the-fleet";
    private static final String OTHER = "another-secret-of-one-instance";

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "fingerprint-" + UUID.randomUUID() + ":";

    @AfterEach
    void close() {
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void twoInstancesWithTheSameSecretBothStartAndTheFingerprintIsKeptWithoutExpiry() {
        engine(SECRET);
        engine(SECRET);

        try (Resp resp = REDIS.client()) {
            assertThat(resp.string("GET", prefix + "key-secret-fingerprint")).startsWith("hmac-sha256:");
            assertThat(resp.number("TTL", prefix + "key-secret-fingerprint")).as("no expiry").isEqualTo(-1);
        }
    }

    @Test
    void anInstanceWithAnotherSecretFailsStartUpNamingTheKeyAndNeitherSecret() {
        engine(SECRET);

        assertThatThrownBy(() -> engine(OTHER))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.key-secret differs")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain(OTHER));
        engine(SECRET); // the fleet's own still starts: the failed instance changed nothing
    }

    @Test
    void theFingerprintIsNeitherTheSecretNorAPlainHashOfIt() throws Exception {
        engine(SECRET);

        String kept;
        try (Resp resp = REDIS.client()) {
            kept = resp.string("GET", prefix + "key-secret-fingerprint");
        }
        byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(SECRET.getBytes(StandardCharsets.UTF_8));
        assertThat(kept).isNotNull()
                .doesNotContainIgnoringCase(SECRET)
                .doesNotContainIgnoringCase(HexFormat.of().formatHex(sha256))
                .doesNotContain(Base64.getEncoder().withoutPadding().encodeToString(sha256))
                .doesNotContain(Base64.getUrlEncoder().withoutPadding().encodeToString(sha256));
    }

    @Test
    void withoutASecretNothingIsWritten() {
        RedisRateLimitStore store = store();
        RateLimitEngine.builder(RateLimitSettings.of(Map.of()), store).build();

        try (Resp resp = REDIS.client()) {
            assertThat(resp.number("EXISTS", prefix + "key-secret-fingerprint")).isZero();
        }
    }

    @Test
    void removingTheFingerprintLetsTheNextInstanceLeaveItsOwn() {
        engine(SECRET);
        try (Resp resp = REDIS.client()) {
            resp.call("DEL", prefix + "key-secret-fingerprint"); // the documented way to change the fleet's secret
        }

        engine(OTHER);
        assertThatThrownBy(() -> engine(SECRET)).hasMessageContaining("ratelimit.key-secret");
    }

    private RateLimitEngine engine(String secret) {
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, secret,
                "ratelimit.store.timeout-millis", "5000")), store()).build();
    }

    private RedisRateLimitStore store() {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(5)).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        return store;
    }
}
