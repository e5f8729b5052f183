package dev.ratelimit.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.it.LogCapture;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.reflect.Proxy;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * A Jakarta REST implementation the library knows no way into (here a request context of no runtime at all):
 * the peer is unknown, and one warning, not one per request, says that client addresses are not available.
 * The runtimes it does know are held to the client-address rules by the suite (tck-tests) on each of them.
 */
class PeerAddressesTest {

    @Test
    void aRuntimeWithoutAKnownWayToThePeerGivesNoPeerAndWarnsOnce() {
        ContainerRequestContext unknownRuntime = (ContainerRequestContext) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        try (LogCapture log = LogCapture.library()) {
            assertThat(PeerAddresses.of(unknownRuntime)).isNull();
            assertThat(PeerAddresses.of(unknownRuntime)).isNull();

            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains("client addresses are not available on this runtime")
                    .contains("addr:unknown");
        }
    }

    @Test
    void theRuntimesWhosePeersItReadsAreKnownAtDeploymentAndAnyOtherIsNot() {
        assertThat(PeerAddresses.knownRuntime(new org.glassfish.jersey.server.ResourceConfig())).as("Jersey").isTrue();
        assertThat(PeerAddresses.knownRuntime(new Object())).isFalse();
        assertThat(PeerAddresses.knownRuntime(Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> null))).as("no runtime's").isFalse();
    }
}
