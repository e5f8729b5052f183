package dev.ratelimit.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The default partition (SPEC 5): the authenticated caller, else the partition header, else one shared count. */
class HeaderPartitionerTest {

    private final HeaderPartitioner partitioner = new HeaderPartitioner("X-Api-Key");

    @Test
    void authenticatedCallerIsItsOwnPartitionWhateverItsHeader() {
        TestCaller alice = new TestCaller("alice", Set.of(), Map.of("x-api-key", "k1"));

        assertThat(partitioner.partition(alice)).isEqualTo("sub:alice");
    }

    @Test
    void anonymousCallerIsPartitionedByTheHeaderValueAsSentUnderTheConfiguredName() {
        assertThat(partitioner.partition(TestCaller.withHeader("x-api-key", "Key-1"))).isEqualTo("X-Api-Key:Key-1");
        assertThat(partitioner.partition(TestCaller.withHeader("X-API-KEY", "key-1"))).isEqualTo("X-Api-Key:key-1");
    }

    @Test
    void callerWithNeitherSharesTheAnonymousPartition() {
        assertThat(partitioner.partition(TestCaller.anonymous())).isEqualTo("anonymous");
        assertThat(partitioner.partition(TestCaller.withHeader("x-api-key", ""))).isEqualTo("anonymous");
        assertThat(partitioner.partition(TestCaller.withHeader("x-other", "k1"))).isEqualTo("anonymous");
        assertThat(new HeaderPartitioner(null).partition(TestCaller.withHeader("x-api-key", "k1"))).isEqualTo("anonymous");
    }

    @Test
    void engineUsesTheConfiguredPartitionHeaderByDefault() {
        RateLimitEngine engine = RateLimitEngine.builder(
                RateLimitSettings.of(Map.of("ratelimit.partition-header", "X-Api-Key")),
                new InProcessRateLimitStore(10, new ManualClock())).build();

        assertThat(engine.ledger(TestCaller.withHeader("x-api-key", "k1"), null).partition()).isEqualTo("X-Api-Key:k1");
        assertThat(engine.ledger(TestCaller.user("bob"), null).partition()).isEqualTo("sub:bob");
    }

    @Test
    void partitionerAnsweringNullIsAnError() {
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of()),
                new InProcessRateLimitStore(10, new ManualClock())).partitioner(caller -> null).build();

        assertThatIllegalStateException().isThrownBy(() -> engine.ledger(TestCaller.anonymous(), null))
                .withMessageContaining("null");
    }
}
