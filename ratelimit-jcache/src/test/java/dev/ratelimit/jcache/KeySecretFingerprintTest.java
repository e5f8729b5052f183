package dev.ratelimit.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Instances on one real Hazelcast grid (two members, instances on each) digest the keys of
 * {@code per = ARGUMENT} limits with one {@code ratelimit.key-secret} (docs/login-protection.md, "One secret for every
 * instance"): each leaves a fingerprint of its secret in the cache of counts; one whose secret differs fails start-up
 * naming the key and neither secret; the fingerprint is neither the secret nor a plain hash of it; without a secret
 * nothing is written.
 */
class KeySecretFingerprintTest {

    private static final String SECRET = "the-first-secret-of-the-fleet";
    private static final String OTHER = "another-secret-of-one-instance";
    private static final String ENTRY = "~key-secret-fingerprint|";

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private final String cache = "fingerprint-" + UUID.randomUUID();

    @Test
    void twoInstancesWithTheSameSecretBothStartAndOneWithAnotherFailsNamingTheKeyAndNeitherSecret() {
        engine(0, SECRET);
        engine(1, SECRET);

        assertThatThrownBy(() -> engine(1, OTHER))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.key-secret differs")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain(OTHER));
        engine(0, SECRET); // the fleet's own still starts: the failed instance changed nothing
    }

    @Test
    void theFingerprintIsNeitherTheSecretNorAPlainHashOfIt() throws Exception {
        engine(0, SECRET);

        byte[] kept = counts(1).get(ENTRY);
        assertThat(kept).as("seen from the other member").isNotNull();
        String text = new String(kept, StandardCharsets.UTF_8);
        byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(SECRET.getBytes(StandardCharsets.UTF_8));
        assertThat(text).startsWith("hmac-sha256:")
                .doesNotContainIgnoringCase(SECRET)
                .doesNotContainIgnoringCase(HexFormat.of().formatHex(sha256))
                .doesNotContain(Base64.getEncoder().withoutPadding().encodeToString(sha256))
                .doesNotContain(Base64.getUrlEncoder().withoutPadding().encodeToString(sha256));
        assertThat(kept).isNotEqualTo(sha256);
    }

    @Test
    void withoutASecretNothingIsWritten() {
        RateLimitEngine.builder(RateLimitSettings.of(Map.of()), store(0)).build();

        assertThat(counts(1).containsKey(ENTRY)).isFalse();
    }

    @Test
    void removingTheFingerprintLetsTheNextInstanceLeaveItsOwn() {
        engine(0, SECRET);
        counts(1).remove(ENTRY); // the documented way to change the fleet's secret

        engine(1, OTHER);
        assertThatThrownBy(() -> engine(0, SECRET)).hasMessageContaining("ratelimit.key-secret");
    }

    private RateLimitEngine engine(int member, String secret) {
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, secret,
                "ratelimit.store.timeout-millis", "30000")), store(member)).build();
    }

    /** A store on member {@code i}, through a cache manager of its own: one application instance. */
    private JCacheRateLimitStore store(int member) {
        return GRID.closing(JCacheRateLimitStore.builder(counts(member)).build());
    }

    private Cache<String, byte[]> counts(int member) {
        return GRID.counts(member, cache);
    }
}
