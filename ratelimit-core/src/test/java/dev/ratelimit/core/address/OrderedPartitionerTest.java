package dev.ratelimit.core.address;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.TestCaller;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import java.net.InetAddress;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The default partitioner (docs/partitions.md): the first element of {@code ratelimit.partition-by} that gives a value,
 * else one shared count; by default the authenticated caller, then the partition header.
 */
class OrderedPartitionerTest {

    private static final List<PartitionSource> DEFAULT = List.of(PartitionSource.PRINCIPAL, PartitionSource.HEADER);
    private static final List<PartitionSource> ALL = List.of(PartitionSource.PRINCIPAL, PartitionSource.HEADER,
            PartitionSource.ADDRESS);

    private final OrderedPartitioner partitioner = new OrderedPartitioner(DEFAULT, "X-Api-Key", ClientAddresses.defaults());

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
        assertThat(new OrderedPartitioner(DEFAULT, null, ClientAddresses.defaults())
                .partition(TestCaller.withHeader("x-api-key", "k1"))).isEqualTo("anonymous");
    }

    @Test
    void theAddressComesAfterAKeyOrAPrincipalWhenListedLast() {
        OrderedPartitioner all = new OrderedPartitioner(ALL, "X-Api-Key", ClientAddresses.defaults());

        assertThat(all.partition(new HttpCaller("alice", "k1", "192.0.2.1"))).isEqualTo("sub:alice");
        assertThat(all.partition(new HttpCaller(null, "k1", "192.0.2.1"))).isEqualTo("X-Api-Key:k1");
        assertThat(all.partition(new HttpCaller(null, null, "192.0.2.1"))).isEqualTo("addr:192.0.2.1");
        assertThat(all.partition(new HttpCaller(null, null, null))).isEqualTo("addr:unknown");
    }

    @Test
    void theAddressWinsWhenListedFirst() {
        OrderedPartitioner addressFirst = new OrderedPartitioner(List.of(PartitionSource.ADDRESS, PartitionSource.PRINCIPAL),
                null, ClientAddresses.defaults());

        assertThat(addressFirst.partition(new HttpCaller("alice", null, "2001:db8:1:2::9"))).isEqualTo("addr:2001:db8:1:2::/64");
    }

    @Test
    void theAddressIsResolvedOnlyWhenItsTurnComes() {
        OrderedPartitioner all = new OrderedPartitioner(ALL, "X-Api-Key", ClientAddresses.defaults());
        HttpCaller withKey = new HttpCaller(null, "k1", "192.0.2.1");
        HttpCaller withoutKey = new HttpCaller(null, null, "192.0.2.1");

        all.partition(withKey);
        all.partition(withoutKey);

        assertThat(withKey.resolutions.get()).isZero();
        assertThat(withoutKey.resolutions.get()).isOne();
    }

    @Test
    void outsideAnHttpRequestThereIsNoAddressAndTheNextElementOrAnonymousApplies() {
        OrderedPartitioner addressOnly = new OrderedPartitioner(List.of(PartitionSource.ADDRESS), null, ClientAddresses.defaults());
        OrderedPartitioner addressFirst = new OrderedPartitioner(List.of(PartitionSource.ADDRESS, PartitionSource.PRINCIPAL),
                null, ClientAddresses.defaults());

        assertThat(addressOnly.partition(TestCaller.anonymous())).isEqualTo("anonymous");
        assertThat(addressFirst.partition(TestCaller.user("bob"))).isEqualTo("sub:bob");
    }

    @Test
    void aCallerOfTheApplicationsOwnMakingIsPartitionedByTheAddressItGivesUnderThePrefix() throws Exception {
        InetAddress address = InetAddress.getByName("2001:db8:aa:bb:cc::1");
        RateLimitCaller custom = TestCaller.anonymous(); // written before clientAddress() existed
        RateLimitCaller withAddress = new RateLimitCaller() {
            public Principal principal() {
                return null;
            }

            public String header(String name) {
                return null;
            }

            public boolean isUserInRole(String role) {
                return false;
            }

            public InetAddress clientAddress() {
                return address;
            }
        };
        OrderedPartitioner addressOnly = new OrderedPartitioner(List.of(PartitionSource.ADDRESS), null, ClientAddresses.defaults());

        assertThat(addressOnly.partition(withAddress)).isEqualTo("addr:2001:db8:aa:bb::/64");
        assertThat(custom.clientAddress()).isNull();
        assertThat(custom.peerAddress()).isNull();
    }

    @Test
    void engineUsesTheConfiguredOrderAndPartitionHeaderByDefault() {
        RateLimitEngine engine = RateLimitEngine.builder(
                RateLimitSettings.of(Map.of("ratelimit.partition-header", "X-Api-Key")),
                new InProcessRateLimitStore(10, new ManualClock())).build();
        RateLimitEngine byAddress = RateLimitEngine.builder(
                RateLimitSettings.of(Map.of("ratelimit.partition-by", "address,principal", "ratelimit.ipv4-prefix", "24")),
                new InProcessRateLimitStore(10, new ManualClock())).build();

        assertThat(engine.ledger(TestCaller.withHeader("x-api-key", "k1"), null).partition()).isEqualTo("X-Api-Key:k1");
        assertThat(engine.ledger(TestCaller.user("bob"), null).partition()).isEqualTo("sub:bob");
        assertThat(byAddress.ledger(new HttpCaller("bob", null, "192.0.2.77", byAddress.settings().clientAddresses()), null)
                .partition()).isEqualTo("addr:192.0.2.0/24");
        assertThat(byAddress.ledger(TestCaller.user("bob"), null).partition()).isEqualTo("sub:bob");
    }

    @Test
    void partitionerAnsweringNullIsAnError() {
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of()),
                new InProcessRateLimitStore(10, new ManualClock())).partitioner(caller -> null).build();

        assertThatIllegalStateException().isThrownBy(() -> engine.ledger(TestCaller.anonymous(), null))
                .withMessageContaining("null");
    }

    /** A caller from an HTTP request, as the Jakarta REST adapter makes it: it resolves its client once, when asked. */
    private static final class HttpCaller implements AddressedCaller {
        private final String name;
        private final String key;
        private final String peer;
        private final ClientAddresses addresses;
        final AtomicInteger resolutions = new AtomicInteger();
        private ResolvedClient client;

        HttpCaller(String name, String key, String peer) {
            this(name, key, peer, ClientAddresses.defaults());
        }

        HttpCaller(String name, String key, String peer, ClientAddresses addresses) {
            this.name = name;
            this.key = key;
            this.peer = peer;
            this.addresses = addresses;
        }

        @Override
        public ResolvedClient resolvedClient() {
            if (client == null) {
                resolutions.incrementAndGet();
                client = addresses.resolve(peer, this);
            }
            return client;
        }

        @Override
        public Principal principal() {
            return name == null ? null : () -> name;
        }

        @Override
        public String header(String header) {
            return header.equalsIgnoreCase("X-Api-Key") ? key : null;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }
    }
}
