package dev.ratelimit.core.address;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Properties of the forwarded-chain walk over random input, each run with a fresh seed that a failure names
 * (property-based tests by hand, as the store's randomized schedules are: a generator, a reference model, and
 * thousands of cases per run):
 * <ul>
 * <li>arbitrary header text, bytes included, never throws and always ends on an address or {@code addr:unknown};</li>
 * <li>a resolution allocates a bounded number of bytes, however long the headers;</li>
 * <li>over random chains of trusted, untrusted and garbage hops, spelled in every way proxies write them, the
 * client is what the naive walk of the client-address rules says: never an entry left of an untrusted or garbage
 * one.</li>
 * </ul>
 */
class ForwardedChainPropertiesTest {

    private static final List<AddressRange> TRUSTED = ClientAddressesTest.trusted("10.0.0.0/8", "127.0.0.1", "::1",
            "2001:db8:ffff::/48");
    /** Full-width prefixes: the partition names the client exactly. */
    private static final ClientAddresses ADDRESSES = new ClientAddresses(TRUSTED, 32, 128, new ManualClock());
    /** Untrusted peers sending forwarded headers are logged: kept out of the build's output. */
    private LogRecords log;

    @BeforeEach
    void captureLog() {
        log = LogRecords.on(LogRecords.LIBRARY).quiet();
    }

    @AfterEach
    void releaseLog() {
        log.close();
    }

    private static final String ALPHABET = "0123456789abcdefABCDEFxyz.:,;=\"\\[]%_- \t\r\n/forFORunknown\u00e9\u20ac\u0000\u00ff";

    @Test
    void arbitraryHeaderTextNeverThrowsAndEndsOnAnAddressOrUnknown() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        ClientAddresses trustingAll = new ClientAddresses(ClientAddressesTest.trusted("0.0.0.0/0", "::/0"), 24, 64, new ManualClock());
        for (int n = 0; n < 50_000; n++) {
            String forwarded = random.nextInt(3) == 0 ? null : junk(random, random.nextInt(120));
            String xForwardedFor = random.nextInt(3) == 0 ? null : junk(random, random.nextInt(120));
            String peer = switch (random.nextInt(4)) {
                case 0 -> "10.1.2.3";
                case 1 -> "::1";
                case 2 -> "198.51.100.9";
                default -> junk(random, random.nextInt(20));
            };
            for (ClientAddresses addresses : new ClientAddresses[] {ADDRESSES, trustingAll}) {
                assertThatCode(() -> {
                    ResolvedClient client = addresses.resolve(peer, forwarded, xForwardedFor);
                    String partition = client.partition();
                    assertThat(partition).startsWith("addr:");
                    if (client.known()) {
                        String network = partition.substring(5).replaceFirst("/\\d+$", "");
                        assertThat(AddressText.address(network, 0, network.length(), new AddressText.Bits())).isTrue();
                        assertThat(client.clientAddress()).isNotNull();
                    } else {
                        assertThat(partition).isEqualTo(ClientAddresses.UNKNOWN);
                    }
                }).as("seed %d, peer [%s], Forwarded [%s], X-Forwarded-For [%s]", seed, peer, forwarded, xForwardedFor)
                        .doesNotThrowAnyException();
            }
        }
    }

    @Test
    void aResolutionAllocatesABoundedAmountHoweverLongTheHeaders() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Random random = new Random(42);
        for (int length : new int[] {100, 10_000, 200_000}) {
            String forwarded = forwardedOfLength(random, length);
            String xForwardedFor = xForwardedForOfLength(random, length);
            for (int warm = 0; warm < (length <= 100 ? 5_000 : 20); warm++) { // the short headers warm the code up
                ADDRESSES.resolve("10.0.0.1", forwarded, null).partition();
                ADDRESSES.resolve("10.0.0.1", null, xForwardedFor).partition();
            }
            int rounds = 50;
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < rounds; i++) {
                ADDRESSES.resolve("10.0.0.1", forwarded, null).partition();
                ADDRESSES.resolve("10.0.0.1", null, xForwardedFor).partition();
            }
            long perResolution = (threads.getCurrentThreadAllocatedBytes() - before) / (2L * rounds);
            assertThat(perResolution).as("bytes allocated per resolution of headers of %d characters", length)
                    .isLessThanOrEqualTo(1024);
        }
    }

    @Test
    void theClientIsWhatTheWalkOfTheSpecSaysNeverAnEntryLeftOfAnUntrustedOrGarbageOne() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int n = 0; n < 30_000; n++) {
            Hop peer = random.nextInt(5) == 0 ? untrusted(random) : trusted(random);
            List<Hop> forwardedChain = random.nextInt(3) == 0 ? null : chain(random);
            List<Hop> xffChain = random.nextInt(3) == 0 ? null : chain(random);
            String forwarded = forwardedChain == null ? null : forwarded(random, forwardedChain);
            String xForwardedFor = xffChain == null ? null : xForwardedFor(random, xffChain);
            String peerText = Spellings.address(random, peer.high, peer.low);

            Hop expected = walk(peer, forwardedChain != null ? forwardedChain : xffChain);
            String partition = ADDRESSES.resolve(peerText, forwarded, xForwardedFor).partition();

            assertThat(partition).as("seed %d, peer %s, Forwarded [%s], X-Forwarded-For [%s]", seed, peerText, forwarded,
                    xForwardedFor).isEqualTo("addr:" + AddressText.toString(expected.high, expected.low));
        }
    }

    // ---------------------------------------------------------------- the reference model

    /** A hop: an address (trusted or not) or garbage. */
    private record Hop(boolean address, boolean trusted, long high, long low, String garbage) {
    }

    /**
     * The client-address walk, as documented: an untrusted peer is the client; else from the right, skip trusted, stop
     * at the first untrusted or at garbage.
     */
    private static Hop walk(Hop peer, List<Hop> hops) {
        if (!peer.trusted || hops == null) {
            return peer;
        }
        Hop last = peer;
        for (int i = hops.size() - 1; i >= 0; i--) {
            Hop hop = hops.get(i);
            if (!hop.address) {
                return last;
            }
            if (!hop.trusted) {
                return hop;
            }
            last = hop;
        }
        return last;
    }

    private static List<Hop> chain(Random random) {
        List<Hop> hops = new ArrayList<>();
        int length = 1 + random.nextInt(6);
        for (int i = 0; i < length; i++) {
            hops.add(switch (random.nextInt(7)) {
                case 0, 1, 2 -> trusted(random);
                case 3, 4 -> untrusted(random);
                default -> garbage(random);
            });
        }
        return hops;
    }

    private static Hop trusted(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> new Hop(true, true, 0, AddressText.MAPPED | 0x0A00_0000L | random.nextInt(1 << 24), null);
            case 1 -> new Hop(true, true, 0, AddressText.MAPPED | 0x7F00_0001L, null);
            case 2 -> new Hop(true, true, 0, 1, null);
            default -> new Hop(true, true, 0x2001_0db8_ffff_0000L | (random.nextInt() & 0xFFFF), random.nextLong(), null);
        };
    }

    private static Hop untrusted(Random random) {
        if (random.nextBoolean()) {
            int first = 11 + random.nextInt(100); // neither 10 nor 127
            return new Hop(true, false, 0, AddressText.MAPPED | (long) first << 24 | random.nextInt(1 << 24), null);
        }
        long high = 0x2001_0db8_0000_0000L | (random.nextLong() & 0x0000_0000_7FFF_FFFFL); // never 2001:db8:ffff::/48
        return new Hop(true, false, high, random.nextLong(), null);
    }

    private static final String[] GARBAGE = {"unknown", "_hidden", "_gazonk.x-1", "", "garbage", "1.2.3", "256.0.0.1",
            "10.0.0.256", "::g", "[::1", "::1]", "example.com", "010.0.0.1", "1.2.3.4:99999", "[2001:db8::1%" + "z".repeat(60) + "]"};

    private static Hop garbage(Random random) {
        return new Hop(false, false, 0, 0, GARBAGE[random.nextInt(GARBAGE.length)]);
    }

    // ---------------------------------------------------------------- spelling chains as proxies do

    private static String xForwardedFor(Random random, List<Hop> hops) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < hops.size(); i++) {
            if (i > 0) {
                text.append(space(random)).append(',').append(space(random));
            }
            Hop hop = hops.get(i);
            text.append(hop.address ? Spellings.node(random, hop.high, hop.low) : hop.garbage);
        }
        return text.toString();
    }

    private static String forwarded(Random random, List<Hop> hops) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < hops.size(); i++) {
            if (i > 0) {
                text.append(space(random)).append(',').append(space(random));
            }
            Hop hop = hops.get(i);
            if (!hop.address && random.nextInt(4) == 0) {
                text.append(switch (random.nextInt(4)) { // malformed elements
                    case 0 -> "proto=https;by=10.0.0.9";
                    case 1 -> "for=192.0.2.1;For=192.0.2.2";
                    case 2 -> "for";
                    default -> "for=192.0.2.1 trailing";
                });
                continue;
            }
            List<String> pairs = new ArrayList<>();
            String node = hop.address ? Spellings.node(random, hop.high, hop.low) : hop.garbage;
            boolean mustQuote = node.indexOf(':') >= 0 || node.indexOf('[') >= 0 || node.isEmpty();
            String name = random.nextBoolean() ? "for" : random.nextBoolean() ? "For" : "FOR";
            pairs.add(name + "=" + (mustQuote || random.nextBoolean() ? "\"" + node + "\"" : node));
            if (random.nextBoolean()) {
                pairs.add(random.nextInt(pairs.size() + 1), "proto=" + (random.nextBoolean() ? "http" : "\"https\""));
            }
            if (random.nextBoolean()) {
                pairs.add(random.nextInt(pairs.size() + 1), "by=\"[2001:db8::9]:80\"");
            }
            if (random.nextInt(4) == 0) {
                pairs.add(random.nextInt(pairs.size() + 1), "host=\"example.com:8080, with; separators\"");
            }
            text.append(String.join(random.nextBoolean() ? ";" : " ; ", pairs));
        }
        return text.toString();
    }

    private static String space(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> " ";
            case 1 -> "\t";
            default -> "";
        };
    }

    private static String junk(Random random, int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(random.nextInt(8) == 0 ? (char) random.nextInt(256) : ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return text.toString();
    }

    private static String forwardedOfLength(Random random, int length) {
        StringBuilder text = new StringBuilder();
        while (text.length() < length) {
            text.append(String.format(Locale.ROOT, "for=\"[2001:db8::%x]:%d\";proto=https, ", random.nextInt(65536), random.nextInt(65536)));
        }
        return text.append("for=10.0.0.2").toString();
    }

    private static String xForwardedForOfLength(Random random, int length) {
        StringBuilder text = new StringBuilder();
        while (text.length() < length) {
            text.append(random.nextInt(256)).append('.').append(random.nextInt(256)).append(".0.1, ");
        }
        return text.append("10.0.0.2").toString();
    }
}
