package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPartitioner;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Client addresses (docs/partitions.md, "Counting by client address") on the embedded Jersey server (Grizzly): the peer
 * read from the native request, the default partitioner counting by address under the prefix,
 * {@code RateLimitCaller.clientAddress()} and {@code peerAddress()} for a partitioner of the application's own, the
 * start-up line, and start-up failures that name key and value.
 */
class ClientAddressTest {

    @Path("/one")
    public static class OneAMinute {
        @GET
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "one")
        public String get() {
            return "ok";
        }
    }

    /** Counts by what the caller says of its addresses, and keeps what it saw. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class AddressRecordingPartitioner implements RateLimitPartitioner {
        static final List<InetAddress[]> SEEN = new CopyOnWriteArrayList<>();

        @Override
        public String partition(RateLimitCaller caller) {
            SEEN.add(new InetAddress[] {caller.clientAddress(), caller.peerAddress()});
            return "client:" + caller.clientAddress().getHostAddress();
        }
    }

    @Test
    void theDefaultPartitionerCountsByClientNetworkBehindATrustedProxy() {
        try (Embedded app = Embedded.builder()
                .config("ratelimit.partition-by", "address")
                .config("ratelimit.trusted-proxies", "127.0.0.1")
                .config("ratelimit.ipv4-prefix", "24")
                .resources(OneAMinute.class).start()) {
            assertThat(app.get("/one", "X-Forwarded-For", "6.6.6.6, 203.0.113.9").statusCode()).isEqualTo(200);
            assertRefusedBy(app.get("/one", "X-Forwarded-For", "7.7.7.7, 203.0.113.77"), "one", 1, 60);
            assertThat(app.get("/one", "X-Forwarded-For", "203.0.114.9").statusCode()).as("another /24").isEqualTo(200);
            assertThat(app.get("/one", "Forwarded", "for=\"[2001:db8:1:2::1]:80\"").statusCode()).isEqualTo(200);
            assertRefusedBy(app.get("/one", "X-Forwarded-For", "2001:db8:1:2:ffff::9"), "one", 1, 60);
            assertThat(app.get("/one").statusCode()).as("the proxy itself").isEqualTo(200);
        }
    }

    @Test
    void withoutTrustedProxiesTheLoopbackPeerIsTheClientWhateverItForwards() {
        try (Embedded app = Embedded.builder()
                .config("ratelimit.partition-by", "address")
                .resources(OneAMinute.class).start();
             LogCapture log = LogCapture.library()) {
            assertThat(app.get("/one", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(200);
            assertRefusedBy(app.get("/one", "X-Forwarded-For", "198.51.100.1"), "one", 1, 60);
            assertRefusedBy(app.get("/one", "Forwarded", "for=198.51.100.2"), "one", 1, 60);

            assertThat(log.messages(Level.WARNING)).filteredOn(m -> m.contains("ratelimit.trusted-proxies")).singleElement()
                    .asString().contains("a request from 127.0.0.1 carries Forwarded or X-Forwarded-For");
        }
    }

    @Test
    void aPartitionerOfTheApplicationsOwnReadsTheClientAndThePeer() throws Exception {
        AddressRecordingPartitioner.SEEN.clear();
        try (Embedded app = Embedded.builder()
                .beans(AddressRecordingPartitioner.class)
                .config("ratelimit.trusted-proxies", "127.0.0.0/8")
                .config("ratelimit.ipv4-prefix", "24")
                .resources(OneAMinute.class).start()) {
            assertThat(app.get("/one", "X-Forwarded-For", "::ffff:192.0.2.77, 127.0.0.9").statusCode()).isEqualTo(200);
            assertThat(app.get("/one").statusCode()).isEqualTo(200);
        }

        assertThat(AddressRecordingPartitioner.SEEN).hasSize(2);
        assertThat(AddressRecordingPartitioner.SEEN.get(0)).as("client before the prefix, and peer")
                .containsExactly(InetAddress.getByName("192.0.2.77"), InetAddress.getByName("127.0.0.1"));
        assertThat(AddressRecordingPartitioner.SEEN.get(1))
                .containsExactly(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("127.0.0.1"));
    }

    @Test
    void theStartUpLineShowsThePartitionOrderTheTrustedRangesAndThePrefixes() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder()
                     .config("ratelimit.partition-header", "X-Api-Key")
                     .config("ratelimit.partition-by", "principal,header,address")
                     .config("ratelimit.trusted-proxies", "10.0.0.0/8, fd00::/8")
                     .config("ratelimit.ipv6-prefix", "56")
                     .resources(OneAMinute.class).start()) {
            assertThat(log.messages(Level.INFO)).singleElement().asString()
                    .contains("partition by principal, header, address")
                    .contains("trusted proxies 10.0.0.0/8, fd00::/8")
                    .contains("client prefixes IPv4 /32, IPv6 /56");
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "ratelimit.ipv4-prefix     | 33",
            "ratelimit.ipv6-prefix     | 129",
            "ratelimit.trusted-proxies | 10.0.0.0/8x",
            "ratelimit.partition-by    | ip",
            "ratelimit.partition-by    | principal,header,address"})
    void aMalformedClientAddressSettingFailsStartUpNamingKeyAndValue(String key, String value) {
        Throwable failure = catchThrowable(() -> Embedded.builder().config(key, value).resources(OneAMinute.class).start().close());

        assertThat(failure).as("start-up with %s=%s", key, value).isNotNull();
        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains(key).contains("\"" + value + "\""));
    }
}
