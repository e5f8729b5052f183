package dev.ratelimit.tck;

import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.tck.ClientAddressCounts.FRESH;
import static dev.ratelimit.tck.ClientAddressCounts.assertShareOneCount;
import static dev.ratelimit.tck.ClientAddressCounts.forwarded;
import static dev.ratelimit.tck.ClientAddressCounts.forwardedFor;
import static dev.ratelimit.tck.ClientAddressCounts.freshIpv4;
import static dev.ratelimit.tck.ClientAddressCounts.spend;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An untrusted peer is the client, whatever it forwards, against a server started with
 * {@code ratelimit.partition-by=principal,header,address} and no trusted proxy
 * ({@code tck.clientAddresses=untrusted-peer}): the suite's connection comes from the loopback peer, which is no proxy,
 * so whatever it forwards is ignored and every anonymous request counts as the peer.
 */
class ClientAddressUntrustedPeerIT extends TckTestBase {

    @BeforeEach
    void onlyAgainstAServerThatTrustsNoProxy() {
        ClientAddressCounts.requireMode(ClientAddressCounts.UNTRUSTED_PEER);
    }

    @Test
    void spoofedForwardedHeadersFromAnUntrustedPeerShareThePeersOneCount() {
        assertShareOneCount("anonymous requests from the loopback peer, each forwarding another client",
                () -> spend(forwardedFor(server, freshIpv4())),
                () -> spend(forwardedFor(server, freshIpv4(), freshIpv4())),
                () -> spend(forwarded(server, "for=" + freshIpv4())),
                () -> spend(forwarded(server, "for=\"[2001:db8::" + Integer.toHexString((int) (Math.random() * 65535)) + "]:4711\"")),
                () -> spend(server.anonymous()));
    }

    @Test
    void aKeyOrAPrincipalStillWinsOverTheAddress() {
        String spoofed = freshIpv4();

        assertThat(spend(server.withFreshKey().withHeader("X-Forwarded-For", spoofed))).as("a fresh key's own count").isEqualTo(FRESH);
        assertThat(spend(server.asFreshUser().withHeader("X-Forwarded-For", spoofed))).as("a fresh caller's own count").isEqualTo(FRESH);
        assertThat(spend(server.as(ServerUnderTest.freshName("user")))).isEqualTo(FRESH);
    }
}
