package dev.ratelimit.benchmarks.address;

import dev.ratelimit.core.address.AddressRange;
import dev.ratelimit.core.address.ClientAddresses;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What finding a client costs per request (docs/partitions.md, "How the client is found"; the target: at most 0.3 us
 * for the walk and the prefix over a three-hop {@code X-Forwarded-For}): parse the peer, walk the forwarded hops from
 * the right past two trusted proxies to the client, apply the prefix and make the {@code addr:} partition text. The
 * clients rotate through {@value #CLIENTS} addresses, as a busy server sees them (no branch or string learned by
 * heart).
 * <ul>
 *   <li>{@code xForwardedForThreeHops}: {@code <client v4>, 10.0.0.3, 10.0.0.2} from peer 10.0.0.1;</li>
 *   <li>{@code xForwardedForThreeHopsIpv6}: the same with an IPv6 client, under the /64 prefix;</li>
 *   <li>{@code forwardedThreeHops}: RFC 7239 {@code Forwarded} with three elements, quoted IPv6 proxy and ports;</li>
 *   <li>{@code untrustedPeer}: a peer that is not a proxy, without forwarded headers: parse, check, partition text
 *       (the floor under the others).</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class ClientAddressWalk {

    static final int CLIENTS = 4096;

    final ClientAddresses addresses = ClientAddresses.of(List.of(AddressRange.parse("10.0.0.0/8"),
            AddressRange.parse("fd00::/8")), 32, 64);
    final String[] xffV4 = new String[CLIENTS];
    final String[] xffV6 = new String[CLIENTS];
    final String[] forwarded = new String[CLIENTS];
    final String[] peers = new String[CLIENTS];
    int next;

    @Setup
    public void setUp() {
        for (int i = 0; i < CLIENTS; i++) {
            String v4 = "198.18." + (i >> 8) + "." + (i & 0xFF);
            String v6 = "2001:db8:" + Integer.toHexString(i) + ":1::" + Integer.toHexString(7 * i + 1);
            xffV4[i] = v4 + ", 10.0.0.3, 10.0.0.2";
            xffV6[i] = v6 + ", 10.0.0.3, 10.0.0.2";
            forwarded[i] = "for=" + v4 + ";proto=https, for=\"[fd00::3]:443\", for=10.0.0.2;by=10.0.0.1";
            peers[i] = "203.0." + (i >> 8 & 0xFF) + "." + (i & 0xFF);
        }
    }

    private int index() {
        int i = next;
        next = (i + 1) & (CLIENTS - 1);
        return i;
    }

    @Benchmark
    public String xForwardedForThreeHops() {
        return addresses.resolve("10.0.0.1", null, xffV4[index()]).partition();
    }

    @Benchmark
    public String xForwardedForThreeHopsIpv6() {
        return addresses.resolve("10.0.0.1", null, xffV6[index()]).partition();
    }

    @Benchmark
    public String forwardedThreeHops() {
        return addresses.resolve("10.0.0.1", forwarded[index()], null).partition();
    }

    @Benchmark
    public String untrustedPeer() {
        return addresses.resolve(peers[index()], null, null).partition();
    }
}
