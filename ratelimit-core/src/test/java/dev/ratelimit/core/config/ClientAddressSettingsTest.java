package dev.ratelimit.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The client-address keys: {@code ratelimit.partition-by}, {@code trusted-proxies}, {@code ipv4-prefix},
 * {@code ipv6-prefix}.
 */
class ClientAddressSettingsTest {

    @Test
    void byDefaultThePrincipalThenTheHeaderNoTrustedProxyAndPrefixes32And64() {
        RateLimitSettings settings = RateLimitSettings.of(Map.of());

        assertThat(settings.partitionBy()).containsExactly(PartitionSource.PRINCIPAL, PartitionSource.HEADER);
        assertThat(settings.clientAddresses().trusted()).isEmpty();
        assertThat(settings.clientAddresses().ipv4Prefix()).isEqualTo(32);
        assertThat(settings.clientAddresses().ipv6Prefix()).isEqualTo(64);
    }

    @Test
    void everyKeyIsRead() {
        RateLimitSettings settings = RateLimitSettings.of(Map.of(
                "ratelimit.partition-header", "X-Api-Key",
                "ratelimit.partition-by", " Address , principal,header ",
                "ratelimit.trusted-proxies", "10.0.0.0/8, 192.168.1.7,fd00::/8 ,::1",
                "ratelimit.ipv4-prefix", "24",
                "ratelimit.ipv6-prefix", "56"));

        assertThat(settings.partitionBy()).containsExactly(PartitionSource.ADDRESS, PartitionSource.PRINCIPAL, PartitionSource.HEADER);
        assertThat(settings.clientAddresses().trusted()).extracting(Object::toString)
                .containsExactly("10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1");
        assertThat(settings.clientAddresses().ipv4Prefix()).isEqualTo(24);
        assertThat(settings.clientAddresses().ipv6Prefix()).isEqualTo(56);
        assertThat(settings.unknownKeys(Set.of())).isEmpty();
    }

    @Test
    void addressAloneNeedsNoPartitionHeader() {
        assertThat(RateLimitSettings.of(Map.of("ratelimit.partition-by", "address")).partitionBy())
                .containsExactly(PartitionSource.ADDRESS);
        assertThat(RateLimitSettings.of(Map.of("ratelimit.partition-by", "principal,address")).partitionBy())
                .containsExactly(PartitionSource.PRINCIPAL, PartitionSource.ADDRESS);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "ratelimit.ipv4-prefix     | 33                | an integer from 1 to 32",
            "ratelimit.ipv4-prefix     | 0                 | an integer from 1 to 32",
            "ratelimit.ipv6-prefix     | 129               | an integer from 1 to 128",
            "ratelimit.ipv6-prefix     | /64               | an integer from 1 to 128",
            "ratelimit.trusted-proxies | 10.0.0.0/8x       | \"10.0.0.0/8x\": the prefix after / must be a number from 0 to 32",
            "ratelimit.trusted-proxies | 10.0.0.0/33       | an IPv4 prefix is at most /32, was /33",
            "ratelimit.trusted-proxies | fd00::/129        | an IPv6 prefix is at most /128, was /129",
            "ratelimit.trusted-proxies | 10.1.2.3/8        | has bits set beyond its /8 prefix (the range is 10.0.0.0/8)",
            "ratelimit.trusted-proxies | proxy.internal    | \"proxy.internal\" is not an IP address or CIDR range",
            "ratelimit.trusted-proxies | 10.0.0.1,,::1     | \"\" is not an IP address or CIDR range",
            "ratelimit.trusted-proxies | fe80::1%eth0      | is not an IP address or CIDR range",
            "ratelimit.partition-by    | ip                | (\"ip\" is not one of them)",
            "ratelimit.partition-by    | principal,,header | (\"\" is not one of them)",
            "ratelimit.partition-by    | address,address   | each at most once"})
    void aMalformedValueFailsStartUpNamingTheKeyAndTheValue(String key, String value, String reason) {
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of(key, value, "ratelimit.partition-header", "X-Api-Key")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("was \"" + value + "\"")
                .hasMessageContaining(reason);
    }

    @Test
    void headerInPartitionByWithoutAPartitionHeaderFailsStartUpNamingBothKeys() {
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of("ratelimit.partition-by", "principal,header,address")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.partition-by")
                .hasMessageContaining("ratelimit.partition-header")
                .hasMessageContaining("was \"principal,header,address\"");
    }

    @Test
    void theStartUpSummaryShowsThePartitionOrderTheTrustedRangesAndThePrefixes() {
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of(
                        "ratelimit.partition-header", "X-Api-Key",
                        "ratelimit.partition-by", "principal,header,address",
                        "ratelimit.trusted-proxies", "127.0.0.0/8,::1")),
                new InProcessRateLimitStore(10, new ManualClock())).build();

        assertThat(engine.binder().summary()).contains("partition by principal, header, address",
                "trusted proxies 127.0.0.0/8, ::1", "client prefixes IPv4 /32, IPv6 /64");
        assertThat(RateLimitEngine.builder(RateLimitSettings.of(Map.of()), new InProcessRateLimitStore(10, new ManualClock()))
                .build().binder().summary()).contains("partition by principal, header", "trusted proxies (none)");
    }

    @Test
    void theListOfKeysStaysInOrder() {
        assertThat(List.of(RateLimitSettings.PARTITION_BY, RateLimitSettings.TRUSTED_PROXIES, RateLimitSettings.IPV4_PREFIX,
                RateLimitSettings.IPV6_PREFIX)).containsExactly("ratelimit.partition-by", "ratelimit.trusted-proxies",
                "ratelimit.ipv4-prefix", "ratelimit.ipv6-prefix");
    }
}
