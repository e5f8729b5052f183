package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.testing.TwoInstances;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One count shared by two application instances on one real Redis (two engines, each on a store and Lettuce client of
 * its own, as two JVMs would be), where the instances race each other and where the count's partition is computed by
 * each of them: give-backs racing acquires leave exactly what was admitted and not given back, and never admit more
 * than the limit at once; a limit per argument counts one username as one count through either instance, when both
 * have the same {@code ratelimit.key-secret} (docs/login-protection.md).
 */
class CountsAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "counts-" + UUID.randomUUID() + ":";
    /** 10 s for Redis to answer. */
    private final TwoInstances instances = new TwoInstances(i -> store(), Duration.ofSeconds(10));

    @AfterEach
    void close() {
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void giveBacksRacingAcquiresOnTwoInstancesLeaveExactlyTheAdmittedNotGivenBackAndNeverAdmitOverTheLimit()
            throws Exception {
        instances.giveBacksRacingAcquiresLeaveExactlyTheAdmittedNotGivenBack(60, 120, 30);
    }

    @Test
    void aLimitPerArgumentCountsOneUsernameOnceThroughBothInstances() {
        instances.aLimitPerArgumentCountsOneUsernameOnceThroughBothInstances();
    }

    /** A store of one more instance, connected. */
    private RedisRateLimitStore store() {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(10)).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        return store;
    }
}
