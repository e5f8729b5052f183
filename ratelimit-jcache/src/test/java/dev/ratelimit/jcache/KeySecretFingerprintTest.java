package dev.ratelimit.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
    private static HazelcastMembers cluster;

    /** One cache manager per member (Hazelcast lets a cache belong to one). */
    private final Map<Integer, CacheManager> managers = new HashMap<>();
    private final List<JCacheRateLimitStore> stores = new ArrayList<>();
    private final String cache = "fingerprint-" + UUID.randomUUID();

    @BeforeAll
    static void start() {
        cluster = HazelcastMembers.start(2);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @AfterEach
    void close() {
        stores.forEach(JCacheRateLimitStore::close);
        managers.values().forEach(CacheManager::close);
    }

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
        JCacheRateLimitStore store = JCacheRateLimitStore.builder(counts(member)).build();
        stores.add(store);
        return store;
    }

    private Cache<String, byte[]> counts(int member) {
        CacheManager manager = managers.computeIfAbsent(member, m -> HazelcastMembers.ownCacheManager(cluster.member(m)));
        return JCacheRateLimitStore.openCache(manager, cache, Duration.ofHours(2));
    }
}
