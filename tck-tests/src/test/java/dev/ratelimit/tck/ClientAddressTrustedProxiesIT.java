package dev.ratelimit.tck;

import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.tck.ClientAddressCounts.FRESH;
import static dev.ratelimit.tck.ClientAddressCounts.assertShareOneCount;
import static dev.ratelimit.tck.ClientAddressCounts.forwarded;
import static dev.ratelimit.tck.ClientAddressCounts.forwardedFor;
import static dev.ratelimit.tck.ClientAddressCounts.freshIpv4;
import static dev.ratelimit.tck.ClientAddressCounts.freshIpv6Slash64;
import static dev.ratelimit.tck.ClientAddressCounts.freshLoopback;
import static dev.ratelimit.tck.ClientAddressCounts.spend;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Forwarded hops from trusted proxies (docs/partitions.md, "How the client is found") against a server started with
 * {@code ratelimit.partition-by=principal,header,address} and {@code ratelimit.trusted-proxies=127.0.0.0/8,::1}
 * ({@code tck.clientAddresses=trusted-proxies}): the suite plays a proxy on the loopback address, forwarding for
 * clients, and every way a client might escape its count fails. Each test counts clients of its own (random addresses,
 * never the suite's own loopback peer), so the suite can run again against the same server at once.
 */
class ClientAddressTrustedProxiesIT extends TckTestBase {

    @BeforeEach
    void onlyAgainstAServerThatTrustsTheLoopbackProxy() {
        ClientAddressCounts.requireMode(ClientAddressCounts.TRUSTED_PROXIES);
    }

    @Test
    void distinctForwardedClientsCountApart() {
        String first = freshIpv4();
        String second = freshIpv4();

        assertThat(spend(forwardedFor(server, first))).isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, first))).isEqualTo(FRESH - 1);
        assertThat(spend(forwardedFor(server, second))).as("another client, a count of its own").isEqualTo(FRESH);
        assertThat(spend(forwarded(server, "for=" + freshIpv4()))).isEqualTo(FRESH);
    }

    @Test
    void aClientThatPrependsSpoofedEntriesStaysInItsCount() {
        String client = freshIpv4();

        assertThat(spend(forwardedFor(server, "6.6.6.6, " + client))).isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, "7.7.7.7, " + client))).isEqualTo(FRESH - 1);
        assertThat(spend(forwardedFor(server, freshIpv4() + ", " + freshIpv4() + ", " + client))).isEqualTo(FRESH - 2);
        assertThat(spend(forwardedFor(server, client))).isEqualTo(FRESH - 3);
        // the documented example (docs/partitions.md), whose count other runs may share: one count, whatever is prepended
        assertShareOneCount("6.6.6.6, 203.0.113.9 then 7.7.7.7, 203.0.113.9",
                () -> spend(forwardedFor(server, "6.6.6.6, 203.0.113.9")),
                () -> spend(forwardedFor(server, "7.7.7.7, 203.0.113.9")));
    }

    @Test
    void twoAddressesOfOneIpv6Slash64ShareACountAndAnotherSlash64DoesNot() {
        String network = freshIpv6Slash64();

        assertThat(spend(forwardedFor(server, network + "1:2:3:4"))).isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, network + "ffff:ffff:ffff:fffe"))).as("the same /64").isEqualTo(FRESH - 1);
        assertThat(spend(forwardedFor(server, freshIpv6Slash64() + "1:2:3:4"))).as("another /64").isEqualTo(FRESH);
    }

    @Test
    void anIpv4MappedAddressSharesTheCountOfItsIpv4Address() {
        String client = freshIpv4();

        assertThat(spend(forwardedFor(server, "::ffff:" + client))).isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, client))).isEqualTo(FRESH - 1);
        assertThat(spend(forwarded(server, "for=\"[::ffff:" + client + "]:8080\""))).isEqualTo(FRESH - 2);
    }

    @Test
    void forwardedWinsOverXForwardedForWithQuotedBracketedIpv6AndPorts() {
        String network = freshIpv6Slash64();
        String xffClient = freshIpv4();

        assertThat(spend(forwarded(server, "for=\"[" + network + ":1]:4711\";proto=http").withHeader("X-Forwarded-For", xffClient)))
                .as("a fresh /64's count, from Forwarded").isEqualTo(FRESH);
        assertThat(spend(forwarded(server, "For=\"[" + network + ":2]:_port\"")))
                .as("the same /64, counted from Forwarded").isEqualTo(FRESH - 1);
        // the count is that /64's, not the loopback peer's (where an address the parser rejected would fall back to)
        assertThat(spend(forwardedFor(server, network + ":3"))).as("the same /64, counted from X-Forwarded-For")
                .isEqualTo(FRESH - 2);
        assertThat(spend(forwardedFor(server, xffClient))).as("X-Forwarded-For was not read while Forwarded was there")
                .isEqualTo(FRESH);
    }

    @Test
    void repeatedHeaderLinesAreJoinedInOrder() {
        String left = freshIpv4();
        String client = freshIpv4();

        // lines "left", "client", "127.0.0.1": joined, the walk skips the trusted hop and stops at client
        assertThat(spend(forwardedFor(server, left, client, "127.0.0.1"))).isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, client))).isEqualTo(FRESH - 1);
        assertThat(spend(forwardedFor(server, left))).as("left of the client: never counted").isEqualTo(FRESH);

        String forwardedLeft = freshIpv4();
        String forwardedClient = freshIpv4();
        assertThat(spend(forwarded(server, "for=" + forwardedLeft, "for=" + forwardedClient, "for=127.0.0.1"))).isEqualTo(FRESH);
        assertThat(spend(forwarded(server, "for=" + forwardedClient))).isEqualTo(FRESH - 1);
    }

    @Test
    void unknownHiddenAndGarbageEntriesFallBackToTheTrustedHopNeverToTheGarbage() {
        String spoofed = freshIpv4();
        String hop = freshLoopback(); // a trusted proxy with a count of its own

        assertThat(spend(forwardedFor(server, spoofed + ", unknown, " + hop))).isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, spoofed + ", not-an-address!, " + hop))).isEqualTo(FRESH - 1);
        assertThat(spend(forwardedFor(server, spoofed + ", 10.0.0.256, " + hop))).isEqualTo(FRESH - 2);
        assertThat(spend(forwarded(server, "for=" + spoofed + ", for=_hidden, for=" + hop))).isEqualTo(FRESH - 3);
        assertThat(spend(forwarded(server, "for=" + spoofed + ", for=unknown, for=\"" + hop + ":80\""))).isEqualTo(FRESH - 4);
        assertThat(spend(forwarded(server, "for=" + spoofed + ", for=\"[garbage]\", for=" + hop))).isEqualTo(FRESH - 5);
        assertThat(spend(forwardedFor(server, hop))).as("the trusted hop's own count").isEqualTo(FRESH - 6);
        assertThat(spend(forwardedFor(server, spoofed))).as("left of the garbage: never counted").isEqualTo(FRESH);
    }

    @Test
    void aKeyOrAPrincipalStillWinsWhenItComesFirst() {
        String client = freshIpv4();

        assertThat(spend(forwardedFor(server, client))).isEqualTo(FRESH);
        assertThat(spend(server.withFreshKey().withHeader("X-Forwarded-For", client))).as("the key's own count").isEqualTo(FRESH);
        assertThat(spend(server.as(ServerUnderTest.freshName("user")).withHeader("X-Forwarded-For", client)))
                .as("the principal's own count").isEqualTo(FRESH);
        assertThat(spend(forwardedFor(server, client))).as("the client's count: only its own requests").isEqualTo(FRESH - 1);
    }
}
