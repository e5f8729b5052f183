package dev.ratelimit.core.address;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Finding the client (docs/partitions.md, "How the client is found"): the cases of RFC 7239 and the pitfalls other
 * limiters fell into (a spoofed leftmost {@code X-Forwarded-For}, IPv6 rotation within a /64, {@code ::ffff:} mapped
 * addresses, repeated header lines, RFC 7239 quoting), then the partition text, and the log of forwarded headers from
 * peers that are not trusted.
 */
class ClientAddressesTest {

    /** Trusted: 10.0.0.0/8, 127.0.0.1, ::1, 2001:db8:ffff::/48. Prefixes at full width, so the partition shows the client. */
    private static final ClientAddresses WALK = new ClientAddresses(trusted("10.0.0.0/8", "127.0.0.1", "::1", "2001:db8:ffff::/48"),
            32, 128, new ManualClock());

    @ParameterizedTest(name = "peer {0}, Forwarded [{1}], X-Forwarded-For [{2}]: {3}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
            // an untrusted peer is the client, whatever it forwards
            "198.51.100.7 |                                             | 6.6.6.6                            | 198.51.100.7",
            "198.51.100.7 | for=6.6.6.6                                 |                                    | 198.51.100.7",
            // a trusted peer without forwarded headers is the client
            "10.0.0.1     |                                             |                                    | 10.0.0.1",
            // X-Forwarded-For: from the right, trusted hops skipped, the first untrusted one is the client
            "10.0.0.1     |                                             | 203.0.113.9                        | 203.0.113.9",
            "10.0.0.1     |                                             | 6.6.6.6, 203.0.113.9               | 203.0.113.9",
            "10.0.0.1     |                                             | 7.7.7.7, 203.0.113.9               | 203.0.113.9",
            "10.0.0.1     |                                             | 6.6.6.6, 203.0.113.9, 10.0.0.2     | 203.0.113.9",
            "10.0.0.1     |                                             | 6.6.6.6,203.0.113.9,\t10.0.0.2     | 203.0.113.9",
            // every hop trusted: the leftmost
            "10.0.0.1     |                                             | 10.0.0.3, 10.0.0.2                 | 10.0.0.3",
            // what is not an address stops the walk at the last trusted address reached, never beyond
            "10.0.0.1     |                                             | 6.6.6.6, unknown, 10.0.0.2         | 10.0.0.2",
            "10.0.0.1     |                                             | 6.6.6.6, _hidden, 10.0.0.2         | 10.0.0.2",
            "10.0.0.1     |                                             | 6.6.6.6, 10.0.0.256, 10.0.0.2      | 10.0.0.2",
            "10.0.0.1     |                                             | 6.6.6.6,,10.0.0.2                  | 10.0.0.2",
            "10.0.0.1     |                                             | 6.6.6.6, garbage                   | 10.0.0.1",
            "10.0.0.1     |                                             | 6.6.6.6,                           | 10.0.0.1",
            "10.0.0.1     |                                             | ''                                 | 10.0.0.1",
            "10.0.0.1     |                                             | 6.6.6.6, example.com, 10.0.0.2     | 10.0.0.2",
            // ports and brackets as proxies write them; zone ids dropped
            "10.0.0.1     |                                             | 203.0.113.9:4711                   | 203.0.113.9",
            "10.0.0.1     |                                             | [2001:db8::1]:4711                 | 2001:db8::1",
            "10.0.0.1     |                                             | 2001:db8::1                        | 2001:db8::1",
            "10.0.0.1     |                                             | fe80::1%eth0                       | fe80::1",
            // repeated header lines arrive joined with commas, in order
            "10.0.0.1     |                                             | 203.0.113.9, 198.51.100.2,10.0.0.2 | 198.51.100.2",
            // an IPv4-mapped address is IPv4: as a hop, and as a trusted peer
            "10.0.0.1     |                                             | ::ffff:198.51.100.1                | 198.51.100.1",
            "::ffff:10.0.0.1 |                                          | 203.0.113.9                        | 203.0.113.9",
            // a peer as runtimes spell it, and a trusted IPv6 range
            "0:0:0:0:0:0:0:1 |                                          | 203.0.113.9                        | 203.0.113.9",
            "2001:db8:ffff:1::1 |                                       | 2001:db8:ffff:2::1, 203.0.113.9    | 203.0.113.9",
            // Forwarded (RFC 7239 4 and 7): the for= node of each element
            "10.0.0.1     | for=\"_gazonk\"                             |                                    | 10.0.0.1",
            "10.0.0.1     | For=\"[2001:db8:cafe::17]:4711\"            |                                    | 2001:db8:cafe::17",
            "10.0.0.1     | for=192.0.2.60;proto=http;by=203.0.113.43   |                                    | 192.0.2.60",
            "10.0.0.1     | for=192.0.2.43, for=198.51.100.17           |                                    | 198.51.100.17",
            "10.0.0.1     | for=\"192.0.2.43:47011\"                    |                                    | 192.0.2.43",
            "10.0.0.1     | for=\"[2001:db8::1]:_port\"                 |                                    | 2001:db8::1",
            "10.0.0.1     | FOR=192.0.2.1 ; proto=http                  |                                    | 192.0.2.1",
            "10.0.0.1     | proto=http;for=192.0.2.1                    |                                    | 192.0.2.1",
            "10.0.0.1     | for=6.6.6.6, for=192.0.2.1, for=10.0.0.2    |                                    | 192.0.2.1",
            // Forwarded wins over X-Forwarded-For, even when it names nobody
            "10.0.0.1     | for=192.0.2.60                              | 198.51.100.17                      | 192.0.2.60",
            "10.0.0.1     | for=unknown                                 | 198.51.100.17                      | 10.0.0.1",
            // Forwarded elements that name no address stop the walk
            "10.0.0.1     | for=6.6.6.6, for=unknown, for=10.0.0.2      |                                    | 10.0.0.2",
            "10.0.0.1     | for=6.6.6.6, for=_hidden, for=\"10.0.0.2\"  |                                    | 10.0.0.2",
            "10.0.0.1     | for=\"6.6.6.6, 7.7.7.7\", for=10.0.0.2      |                                    | 10.0.0.2",
            "10.0.0.1     | for=6.6.6.6, by=10.0.0.9;proto=https        |                                    | 10.0.0.1",
            "10.0.0.1     | for=192.0.2.1;for=192.0.2.2                 |                                    | 10.0.0.1",
            "10.0.0.1     | for=6.6.6.6, for=192.0.2.1 x, for=10.0.0.2  |                                    | 10.0.0.2",
            "10.0.0.1     | for=6.6.6.6, for=\"\\\"1.2.3.4\", for=10.0.0.2 |                                 | 10.0.0.2",
            "10.0.0.1     | for=192.0.2.1, for=\"10.0.0.2               |                                    | 10.0.0.1",
            "10.0.0.1     | for=6.6.6.6, novalue, for=10.0.0.2          |                                    | 10.0.0.2",
            "10.0.0.1     | ''                                          | 198.51.100.17                      | 10.0.0.1",
            "10.0.0.1     | for=10.0.0.3, for=10.0.0.2                  |                                    | 10.0.0.3"})
    void theClientIsTheFirstUntrustedHopFromTheRightAndNeverGarbage(String peer, String forwarded, String xForwardedFor,
                                                                    String client) {
        ResolvedClient resolved = WALK.resolve(peer, forwarded, xForwardedFor);

        assertThat(resolved.partition()).isEqualTo("addr:" + client);
    }

    @Test
    void anEntryLongerThan64CharactersIsNotAnAddress() {
        String padded = "[2001:db8::1%" + "a".repeat(60) + "]";

        assertThat(WALK.resolve("10.0.0.1", null, "6.6.6.6, " + padded + ", 10.0.0.2").partition()).isEqualTo("addr:10.0.0.2");
        assertThat(WALK.resolve("10.0.0.1", "for=\"" + padded + "\", for=10.0.0.2", null).partition()).isEqualTo("addr:10.0.0.2");
    }

    // ---------------------------------------------------------------- the partition

    @Test
    void twoAddressesOfOneIpv6Slash64ShareAPartitionAndAnotherSlash64DoesNot() {
        ClientAddresses defaults = ClientAddresses.defaults();

        String first = defaults.resolve("2001:db8:1:2:aaaa::1", null, null).partition();
        String second = defaults.resolve("2001:db8:1:2:ffff:ffff:ffff:fffe", null, null).partition();
        String other = defaults.resolve("2001:db8:1:3::1", null, null).partition();

        assertThat(first).isEqualTo("addr:2001:db8:1:2::/64").isEqualTo(second);
        assertThat(other).isEqualTo("addr:2001:db8:1:3::/64");
    }

    @Test
    void anIpv4MappedClientSharesThePartitionOfItsIpv4Address() {
        ClientAddresses defaults = ClientAddresses.defaults();

        assertThat(defaults.resolve("::ffff:198.51.100.1", null, null).partition()).isEqualTo("addr:198.51.100.1");
        assertThat(defaults.resolve("198.51.100.1", null, null).partition()).isEqualTo("addr:198.51.100.1");
    }

    @Test
    void thePrefixesApplyPerFamilyAndShowWhenBelowTheFamilysWidth() {
        ClientAddresses prefixed = ClientAddresses.of(List.of(), 24, 48);
        ClientAddresses full = ClientAddresses.of(List.of(), 32, 128);

        assertThat(prefixed.resolve("192.0.2.77", null, null).partition()).isEqualTo("addr:192.0.2.0/24");
        assertThat(prefixed.resolve("2001:db8:1:2::1", null, null).partition()).isEqualTo("addr:2001:db8:1::/48");
        assertThat(full.resolve("192.0.2.77", null, null).partition()).isEqualTo("addr:192.0.2.77");
        assertThat(full.resolve("2001:DB8:0:0:1:0:0:1", null, null).partition()).isEqualTo("addr:2001:db8::1:0:0:1");
    }

    @Test
    void clientAndPeerAddressesAreTheResolvedAddressesBeforeThePrefix() throws Exception {
        ResolvedClient resolved = ClientAddresses.of(trusted("127.0.0.1"), 24, 64)
                .resolve("127.0.0.1", null, "::ffff:192.0.2.77");

        assertThat(resolved.clientAddress()).isEqualTo(InetAddress.getByName("192.0.2.77"));
        assertThat(resolved.clientAddress().getAddress()).hasSize(4);
        assertThat(resolved.peerAddress()).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(resolved.partition()).isEqualTo("addr:192.0.2.0/24");
        assertThat(ClientAddresses.defaults().resolve("2001:db8::7", null, null).clientAddress())
                .isEqualTo(InetAddress.getByName("2001:db8::7"));
    }

    @Test
    void aPeerTheRuntimeCannotTellIsUnknownAndItsForwardedHeadersAreNotBelieved() {
        ClientAddresses trustingAll = ClientAddresses.of(trusted("0.0.0.0/0", "::/0"), 32, 64);

        for (String peer : new String[] {null, "", "localhost", "not-an-address"}) {
            ResolvedClient resolved = trustingAll.resolve(peer, "for=192.0.2.1", "192.0.2.1");
            assertThat(resolved.known()).isFalse();
            assertThat(resolved.partition()).isEqualTo(ClientAddresses.UNKNOWN);
            assertThat(resolved.clientAddress()).isNull();
            assertThat(resolved.peerAddress()).isNull();
        }
    }

    @Test
    void aCallerOfTheApplicationsOwnMakingIsPartitionedByItsClientAddress() throws Exception {
        ClientAddresses defaults = ClientAddresses.defaults();

        assertThat(defaults.partition(InetAddress.getByName("192.0.2.9"))).isEqualTo("addr:192.0.2.9");
        assertThat(defaults.partition(InetAddress.getByName("2001:db8:5:6:7::1"))).isEqualTo("addr:2001:db8:5:6::/64");
    }

    @Test
    void theStartUpLineShowsTheTrustedRangesAndThePrefixes() {
        assertThat(ClientAddresses.defaults().describe()).isEqualTo("trusted proxies (none); client prefixes IPv4 /32, IPv6 /64");
        assertThat(ClientAddresses.of(trusted("10.0.0.0/8", "192.168.1.7", "FD00::/8", "::ffff:172.16.0.0/108"), 24, 56).describe())
                .isEqualTo("trusted proxies 10.0.0.0/8, 192.168.1.7, fd00::/8, 172.16.0.0/12; client prefixes IPv4 /24, IPv6 /56");
    }

    // ---------------------------------------------------------------- forwarded headers from an untrusted peer

    @Test
    void forwardedHeadersFromAnUntrustedPeerAreLoggedOnceAnHourPerPeerNamingItAndTheKey() {
        ManualClock clock = new ManualClock();
        ClientAddresses addresses = new ClientAddresses(trusted("10.0.0.0/8"), 32, 64, clock);
        try (LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet()) {
            addresses.resolve("198.51.100.7", null, "6.6.6.6");
            addresses.resolve("198.51.100.7", "for=7.7.7.7", null);
            addresses.resolve("198.51.100.8", null, null); // nothing forwarded: nothing to say
            addresses.resolve("10.0.0.1", null, "6.6.6.6"); // trusted: believed
            clock.advance(Duration.ofMinutes(59));
            addresses.resolve("198.51.100.7", null, "6.6.6.6");
            addresses.resolve("2001:db8::7", null, "6.6.6.6");

            assertThat(log.messages(Level.WARNING)).hasSize(2);
            assertThat(log.messages(Level.WARNING).get(0)).contains("198.51.100.7", "ratelimit.trusted-proxies", "X-Forwarded-For");
            assertThat(log.messages(Level.WARNING).get(1)).contains("2001:db8::7", "ratelimit.trusted-proxies");

            clock.advance(Duration.ofMinutes(1));
            addresses.resolve("198.51.100.7", null, "6.6.6.6");
            assertThat(log.messages(Level.WARNING, "198.51.100.7")).hasSize(2);
        }
    }

    @Test
    void theLogOfUntrustedPeersRemembersABoundedNumberAndSummarisesTheRest() {
        ManualClock clock = new ManualClock();
        ClientAddresses addresses = new ClientAddresses(List.of(), 32, 64, clock);
        int capacity = UntrustedForwardingLog.CAPACITY;
        try (LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet()) {
            for (int i = 0; i < capacity + 500; i++) {
                addresses.resolve("198.18." + (i >> 8) + "." + (i & 0xFF), null, "6.6.6.6");
            }
            assertThat(log.messages(Level.WARNING, "is not in ratelimit.trusted-proxies")).hasSize(capacity);
            assertThat(log.messages(Level.WARNING, "from more than " + capacity + " such peers")).hasSize(1);

            clock.advance(Duration.ofMinutes(61));
            addresses.resolve("198.19.0.1", null, "6.6.6.6");
            assertThat(log.messages(Level.WARNING, "198.19.0.1 is not in")).hasSize(1);
        }
    }

    static List<AddressRange> trusted(String... ranges) {
        return java.util.Arrays.stream(ranges).map(AddressRange::parse).toList();
    }
}
