package dev.ratelimit.core.address;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hand-written address parser and formatter (IPv4, IPv6, IPv4-mapped, zone ids dropped): valid text agrees with the
 * JDK's own literal parser ({@code InetAddress.getByName} on text that is certainly a literal, so never a name lookup);
 * text that is not an address is refused; the canonical text is RFC 5952's.
 */
class AddressTextTest {

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "192.0.2.1", "255.255.255.255", "10.0.0.1", "127.0.0.1", "1.2.3.4",
            "::", "::1", "1::", "2001:db8::1", "2001:DB8::1", "2001:0db8:0000:0000:0000:0000:0000:0001",
            "2001:db8:1:2:3:4:5:6", "fe80::1", "::ffff:192.0.2.1", "::ffff:c000:201", "::192.0.2.1",
            "1:2:3:4:5:6:1.2.3.4", "1::1.2.3.4", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8", "0:0:0:0:0:0:0:1"})
    void validTextMeansWhatTheJdkSaysItMeans(String text) throws Exception {
        AddressText.Bits bits = new AddressText.Bits();

        assertThat(AddressText.address(text, 0, text.length(), bits)).as(text).isTrue();
        assertThat(bits(bits)).as(text).isEqualTo(jdk(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.04", "01.2.3.4", "1..2.3", "1.2.3.4.",
            ".1.2.3.4", "1.2.3.-4", "1.2.3.a", "1234.1.1.1", "+1.2.3.4", "1.2.3.4 ", "unknown", "_hidden", "localhost",
            "example.com", ":", ":::", "1:2", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1::2::3", ":1::2", "1::2:",
            "12345::", "g::1", "::ffff:1.2.3", "::1.2.3.4.5", "1:2:3:4:5:6:7:1.2.3.4", "::ffff:256.1.1.1",
            "fe80::1%", "fe80::1%eth 0", "[::1]", "1.2.3.4%eth0", "::1.2.3.04", "1:2:3:4:5:6:7:8::"})
    void textThatIsNotAnAddressIsRefused(String text) {
        assertThat(AddressText.address(text, 0, text.length(), new AddressText.Bits())).as("\"%s\"", text).isFalse();
    }

    @Test
    void zoneIdsAreDropped() throws Exception {
        AddressText.Bits bits = new AddressText.Bits();

        assertThat(AddressText.address("fe80::1%eth0", 0, 12, bits)).isTrue();
        assertThat(bits(bits)).isEqualTo(jdk("fe80::1"));
        assertThat(AddressText.address("fe80::1%25eth0", 0, 14, bits)).isTrue();
        assertThat(bits(bits)).isEqualTo(jdk("fe80::1"));
        assertThat(AddressText.address("::ffff:192.0.2.1%lo", 0, 19, bits)).isTrue();
        assertThat(bits(bits)).isEqualTo(jdk("192.0.2.1"));
        assertThat(AddressText.address("fe80::1%eth0:1", 0, 14, bits)).as("a zone id ends the address").isFalse();
    }

    @Test
    void anIpv4MappedAddressIsTheIpv4Address() {
        AddressText.Bits mapped = new AddressText.Bits();
        AddressText.Bits plain = new AddressText.Bits();

        assertThat(AddressText.address("::ffff:198.51.100.1", 0, 19, mapped)).isTrue();
        assertThat(AddressText.address("198.51.100.1", 0, 12, plain)).isTrue();
        assertThat(bits(mapped)).isEqualTo(bits(plain));
        assertThat(AddressText.isIpv4(mapped.high, mapped.low)).isTrue();
        assertThat(AddressText.toString(mapped.high, mapped.low)).isEqualTo("198.51.100.1");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "192.0.2.1|192.0.2.1",
            "[2001:db8::1]|2001:db8::1",
            "[2001:db8:cafe::17]:4711|2001:db8:cafe::17",
            "192.0.2.43:47011|192.0.2.43",
            "192.0.2.43:_abc|192.0.2.43",
            "[2001:db8::1]:_hidden-port|2001:db8::1",
            "2001:db8::1|2001:db8::1",
            "[fe80::1%eth0]:80|fe80::1",
            "[::ffff:192.0.2.1]|192.0.2.1"})
    void nodesAsProxiesWriteThemDropThePort(String node, String canonical) {
        AddressText.Bits bits = new AddressText.Bits();

        assertThat(AddressText.node(node, 0, node.length(), bits)).as(node).isTrue();
        assertThat(AddressText.toString(bits.high, bits.low)).isEqualTo(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"unknown", "_hidden", "_gazonk", "[2001:db8::1", "2001:db8::1]", "[192.0.2.1]", "192.0.2.1:",
            "192.0.2.1:65536", "192.0.2.1:123456", "192.0.2.1:8a", "192.0.2.1:_", "192.0.2.1:_a b", "[::1]80", "[::1]:",
            "[::1]:x", "[]", "\"192.0.2.1\"", "192.0.2.1:80:80",
            "0000000000000000000000000000000000000000000000000000000000000001.1.1.1",
            "[0000:0000:0000:0000:0000:0000:0000:0001%aaaaaaaaaaaaaaaaaaaaaaaaa]"})
    void nodesThatAreNotAddressesAreRefused(String node) {
        assertThat(AddressText.node(node, 0, node.length(), new AddressText.Bits())).as(node).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // RFC 5952 4.1 leading zeros, 4.2.1 the longest run, 4.2.2 no "::" for one group, 4.2.3 the first of equal runs, 4.3 lower case
            "2001:0db8:0000:0000:0000:0000:0000:0001|2001:db8::1",
            "2001:db8:0:0:0:0:2:1|2001:db8::2:1",
            "2001:db8:0:1:1:1:1:1|2001:db8:0:1:1:1:1:1",
            "2001:0:0:1:0:0:0:1|2001:0:0:1::1",
            "2001:db8:0:0:1:0:0:1|2001:db8::1:0:0:1",
            "2001:DB8::AB|2001:db8::ab",
            "0:0:0:0:0:0:0:0|::",
            "0:0:0:0:0:0:0:1|::1",
            "1:0:0:0:0:0:0:0|1::",
            "1:0:1:0:1:0:1:0|1:0:1:0:1:0:1:0",
            "::192.0.2.1|::c000:201",
            "::ffff:192.0.2.1|192.0.2.1"})
    void canonicalTextIsRfc5952(String text, String canonical) {
        AddressText.Bits bits = new AddressText.Bits();

        assertThat(AddressText.address(text, 0, text.length(), bits)).isTrue();
        assertThat(AddressText.toString(bits.high, bits.low)).isEqualTo(canonical);
    }

    /**
     * Random addresses, written in the many ways RFC 4291 allows (leading zeros, upper case, "::" anywhere it
     * fits, an IPv4 tail), parse to what the JDK parses them to, and their canonical text parses back to them.
     */
    @Test
    void randomAddressesInEveryValidSpellingAgreeWithTheJdk() throws Exception {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        AddressText.Bits bits = new AddressText.Bits();
        for (int n = 0; n < 20_000; n++) {
            long high = random.nextInt(4) == 0 ? 0 : random.nextLong();
            long low = random.nextInt(3) == 0 ? AddressText.MAPPED | (random.nextLong() & 0xFFFF_FFFFL) : random.nextLong();
            if (random.nextBoolean()) { // runs of zero groups, where "::" has something to do
                int from = random.nextInt(8);
                int to = from + random.nextInt(8 - from) + 1;
                for (int g = from; g < to; g++) {
                    if (g < 4) {
                        high &= ~(0xFFFFL << (48 - 16 * g));
                    } else {
                        low &= ~(0xFFFFL << (48 - 16 * (g - 4)));
                    }
                }
            }
            String text = Spellings.ipv6(random, high, low);
            String context = "seed " + seed + ", text " + text;
            assertThat(AddressText.address(text, 0, text.length(), bits)).as(context).isTrue();
            assertThat(bits(bits)).as(context).isEqualTo(jdk(text));
            assertThat(bits(bits)).as(context).isEqualTo(new long[] {high, low});
            String canonical = AddressText.toString(high, low);
            assertThat(AddressText.address(canonical, 0, canonical.length(), bits)).as(context + ", canonical " + canonical).isTrue();
            assertThat(bits(bits)).as(context + ", canonical " + canonical).isEqualTo(new long[] {high, low});
        }
    }

    private static long[] bits(AddressText.Bits bits) {
        return new long[] {bits.high, bits.low};
    }

    /** The JDK's reading of text that the test knows is an address literal (never a name: no DNS). */
    static long[] jdk(String literal) throws Exception {
        byte[] bytes = InetAddress.getByName(literal).getAddress();
        if (bytes.length == 4) {
            long v4 = 0;
            for (byte b : bytes) {
                v4 = v4 << 8 | (b & 0xFF);
            }
            return new long[] {0, AddressText.MAPPED | v4};
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < 8; i++) {
            high = high << 8 | (bytes[i] & 0xFF);
            low = low << 8 | (bytes[i + 8] & 0xFF);
        }
        return new long[] {high, low};
    }
}
