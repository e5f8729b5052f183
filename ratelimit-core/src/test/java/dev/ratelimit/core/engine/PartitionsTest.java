package dev.ratelimit.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import java.net.InetAddress;
import java.security.Principal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one place that decides where a request's limits count: the caller's partition by the partitioner, and the
 * address by the one rule the partitioner shares ({@link ClientAddresses#partitionOf}).
 */
class PartitionsTest {

    private final RateLimitSettings settings = RateLimitSettings.of(Map.of("ratelimit.partition-by", "address"));
    private final Partitions partitions = new Partitions(settings, null);

    @Test
    void theCallersPartitionByAddressIsTheAddressPartition() {
        RateLimitCaller caller = from("192.0.2.7");
        String partition = partitions.ofCaller(caller);
        assertThat(partition).isEqualTo("addr:192.0.2.7")
                .isEqualTo(settings.clientAddresses().partitionOf(caller));
    }

    @Test
    void aCallerWithoutAnAddressIsAnonymousForThePartitionerAndUnknownForALimitPerAddress() {
        RateLimitCaller caller = TestCaller.anonymous();
        assertThat(settings.clientAddresses().partitionOf(caller)).isNull();
        assertThat(settings.clientAddresses().partitionOf(null)).isNull();
        assertThat(partitions.ofCaller(caller)).isEqualTo("anonymous");
    }

    @Test
    void onlyTheInProcessStoreSaysItIsNotShared() {
        assertThat(new InProcessRateLimitStore().shared()).isFalse();
        assertThat(new SharedFakeStore(new ManualClock()).shared()).as("the SPI's default").isTrue();
    }

    private static RateLimitCaller from(String address) {
        return new RateLimitCaller() {
            @Override
            public Principal principal() {
                return null;
            }

            @Override
            public String header(String name) {
                return null;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }

            @Override
            public InetAddress clientAddress() {
                return address(address);
            }
        };
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text); // a literal: never a name lookup
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
