package dev.ratelimit.core.address;

import dev.ratelimit.core.RateLimitCaller;
import java.net.InetAddress;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.LongSupplier;

/**
 * Finds a request's client (docs/partitions.md, "How the client is found"): the peer, believed about the hops it
 * forwards only when it is one of {@code ratelimit.trusted-proxies}; then the client's network under
 * {@code ratelimit.ipv4-prefix} or {@code ratelimit.ipv6-prefix}, as the partition {@code addr:<network>}.
 *
 * <p>The walk: an untrusted peer is the client. From a trusted peer, the hops are the
 * {@code for=} nodes of {@code Forwarded} when the request has that header, else the entries of
 * {@code X-Forwarded-For}; walking from the right, trusted hops are skipped and the first untrusted one is
 * the client; if all are trusted, the leftmost is. An entry that is not an address stops the walk at the
 * last trusted address reached. So nothing a client writes left of the first hop a trusted proxy wrote can
 * move it out of its count, and garbage never becomes a partition.
 *
 * <p>Immutable and thread-safe (the log of untrusted forwarding is concurrent). A resolution allocates its
 * result and one scratch object, and nothing while parsing.
 */
public final class ClientAddresses {

    public static final String FORWARDED = "Forwarded";
    public static final String X_FORWARDED_FOR = "X-Forwarded-For";
    /** The partition of a request whose peer the runtime cannot tell: one shared count. */
    public static final String UNKNOWN = "addr:unknown";
    static final String PREFIX = "addr:";
    public static final int DEFAULT_IPV4_PREFIX = 32;
    public static final int DEFAULT_IPV6_PREFIX = 64;

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private final List<AddressRange> trusted;
    private final long[] networkHigh;
    private final long[] networkLow;
    private final long[] maskHigh;
    private final long[] maskLow;
    private final int ipv4Prefix;
    private final int ipv6Prefix;
    private final UntrustedForwardingLog untrusted;

    /**
     * @param trusted    the trusted proxies
     * @param ipv4Prefix the bits of an IPv4 client that count (1-32)
     * @param ipv6Prefix the bits of an IPv6 client that count (1-128)
     * @param clock      nanoseconds, spacing the log of forwarded headers from untrusted peers
     */
    public ClientAddresses(List<AddressRange> trusted, int ipv4Prefix, int ipv6Prefix, LongSupplier clock) {
        if (ipv4Prefix < 1 || ipv4Prefix > 32) {
            throw new IllegalArgumentException("an IPv4 prefix is 1-32, was " + ipv4Prefix);
        }
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("an IPv6 prefix is 1-128, was " + ipv6Prefix);
        }
        this.trusted = List.copyOf(trusted);
        int n = this.trusted.size();
        this.networkHigh = new long[n];
        this.networkLow = new long[n];
        this.maskHigh = new long[n];
        this.maskLow = new long[n];
        for (int i = 0; i < n; i++) {
            AddressRange range = this.trusted.get(i);
            networkHigh[i] = range.high();
            networkLow[i] = range.low();
            maskHigh[i] = AddressRange.maskHigh(range.bits());
            maskLow[i] = AddressRange.maskLow(range.bits());
        }
        this.ipv4Prefix = ipv4Prefix;
        this.ipv6Prefix = ipv6Prefix;
        this.untrusted = new UntrustedForwardingLog(LOG, clock);
    }

    /** On {@code System.nanoTime}. */
    public static ClientAddresses of(List<AddressRange> trusted, int ipv4Prefix, int ipv6Prefix) {
        return new ClientAddresses(trusted, ipv4Prefix, ipv6Prefix, System::nanoTime);
    }

    /** The defaults: no trusted proxy, IPv4 /32, IPv6 /64. */
    public static ClientAddresses defaults() {
        return of(List.of(), DEFAULT_IPV4_PREFIX, DEFAULT_IPV6_PREFIX);
    }

    public List<AddressRange> trusted() {
        return trusted;
    }

    public int ipv4Prefix() {
        return ipv4Prefix;
    }

    public int ipv6Prefix() {
        return ipv6Prefix;
    }

    /**
     * The client of a request: the peer as the runtime reports it, and the forwarded headers of {@code request},
     * read only when they may matter (a trusted peer; or to log forwarding by an untrusted one).
     *
     * @param peer the connection's address as text, or null when the runtime cannot tell
     */
    public ResolvedClient resolve(String peer, RateLimitCaller request) {
        return resolve(peer, request, null, null);
    }

    /**
     * {@link #resolve(String, RateLimitCaller)} on the values of the two headers (null when absent; repeated
     * lines joined with commas, in order).
     */
    public ResolvedClient resolve(String peer, String forwarded, String xForwardedFor) {
        return resolve(peer, null, forwarded, xForwardedFor);
    }

    /** The headers come from {@code request} when it is not null, else they are the two values. */
    private ResolvedClient resolve(String peer, RateLimitCaller request, String forwarded, String xForwardedFor) {
        AddressText.Bits bits = new AddressText.Bits();
        if (peer == null || !AddressText.address(peer, 0, peer.length(), bits)) {
            return new ResolvedClient(this);
        }
        long peerHigh = bits.high;
        long peerLow = bits.low;
        if (!trusts(peerHigh, peerLow)) {
            if (request != null ? request.header(FORWARDED) != null || request.header(X_FORWARDED_FOR) != null
                    : forwarded != null || xForwardedFor != null) {
                untrusted.forwardedFrom(peerHigh, peerLow);
            }
            return new ResolvedClient(this, peerHigh, peerLow, peerHigh, peerLow);
        }
        String hops = request != null ? request.header(FORWARDED) : forwarded;
        if (hops != null) {
            forwarded(hops, bits, peerHigh, peerLow);
        } else {
            hops = request != null ? request.header(X_FORWARDED_FOR) : xForwardedFor;
            if (hops != null) {
                xForwardedFor(hops, bits, peerHigh, peerLow);
            }
        }
        return new ResolvedClient(this, peerHigh, peerLow, bits.high, bits.low);
    }

    /** Whether {@code (high, low)} is a trusted proxy. */
    boolean trusts(long high, long low) {
        for (int i = 0; i < networkHigh.length; i++) {
            if (((high ^ networkHigh[i]) & maskHigh[i]) == 0 && ((low ^ networkLow[i]) & maskLow[i]) == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Walks {@code X-Forwarded-For} from the right, from the trusted peer; {@code bits} is the parser's scratch,
     * and holds the client on return.
     */
    private void xForwardedFor(String header, AddressText.Bits bits, long peerHigh, long peerLow) {
        long high = peerHigh; // the last trusted address reached, then the client
        long low = peerLow;
        int end = header.length();
        while (true) {
            int comma = end - 1;
            while (comma >= 0 && header.charAt(comma) != ',') {
                comma--;
            }
            int from = comma + 1;
            int to = end;
            while (from < to && isSpace(header.charAt(from))) {
                from++;
            }
            while (to > from && isSpace(header.charAt(to - 1))) {
                to--;
            }
            if (!AddressText.node(header, from, to, bits)) {
                break; // garbage: the last trusted address reached
            }
            high = bits.high;
            low = bits.low;
            if (!trusts(high, low) || comma < 0) {
                break; // the first untrusted hop, or the leftmost of trusted ones
            }
            end = comma;
        }
        bits.set(high, low);
    }

    /**
     * The same walk over the {@code for=} nodes of {@code Forwarded}. Quoted strings may hold commas, so the
     * elements are read from the left, keeping what the walk from the right would end on: the last element
     * that is not a trusted address, and the trusted one just right of it.
     */
    private void forwarded(String header, AddressText.Bits bits, long peerHigh, long peerLow) {
        ForwardedElements elements = new ForwardedElements(header, bits);
        int count = 0;
        boolean stopped = false; // some element is not trusted
        boolean garbage = false; // the last such element is not an address
        long stopHigh = 0;
        long stopLow = 0;
        boolean after = false; // a trusted address right of the last stop
        long afterHigh = 0;
        long afterLow = 0;
        long firstHigh = 0;
        long firstLow = 0;
        AddressText.Bits hop = bits;
        while (elements.next()) {
            boolean address = elements.isAddress();
            if (address && trusts(hop.high, hop.low)) {
                if (count == 0) {
                    firstHigh = hop.high;
                    firstLow = hop.low;
                }
                if (stopped && !after) {
                    after = true;
                    afterHigh = hop.high;
                    afterLow = hop.low;
                }
            } else {
                stopped = true;
                garbage = !address;
                stopHigh = hop.high;
                stopLow = hop.low;
                after = false;
            }
            count++;
        }
        if (count == 0 || (stopped && garbage && !after)) {
            bits.set(peerHigh, peerLow); // no hop, or garbage the rightmost: the trusted peer
        } else if (!stopped) {
            bits.set(firstHigh, firstLow);
        } else if (!garbage) {
            bits.set(stopHigh, stopLow);
        } else {
            bits.set(afterHigh, afterLow);
        }
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    /** {@code addr:<network>} of an address, under the configured prefix. */
    String partition(long high, long low) {
        boolean v4 = AddressText.isIpv4(high, low);
        int prefix = v4 ? ipv4Prefix : ipv6Prefix;
        int bits = v4 ? 96 + prefix : prefix;
        return AddressText.toText(PREFIX, high & AddressRange.maskHigh(bits), low & AddressRange.maskLow(bits),
                prefix < (v4 ? 32 : 128) ? prefix : -1);
    }

    /**
     * The partition of a caller's client address, {@code addr:<network>}; null when the caller has no address (a call
     * outside an HTTP request), or is null. A caller from an HTTP request ({@link AddressedCaller}) resolves its client
     * once per request and keeps the partition ({@link ResolvedClient#partition}, {@value #UNKNOWN} where the runtime
     * cannot tell): every later ask of the same request finds it made. The one rule for the address of a caller: the
     * partitioner ({@code partition-by=address}) and the engine's limits per address both ask here.
     */
    public String partitionOf(RateLimitCaller caller) {
        if (caller instanceof AddressedCaller addressed) {
            return addressed.resolvedClient().partition();
        }
        InetAddress client = caller == null ? null : caller.clientAddress(); // a caller of the application's own making
        return client == null ? null : partition(client);
    }

    /** {@code addr:<network>} of an address a custom caller gives ({@link RateLimitCaller#clientAddress()}). */
    public String partition(InetAddress client) {
        byte[] bytes = client.getAddress();
        if (bytes.length == 4) {
            return partition(0, AddressText.MAPPED | (toLong(bytes, 0, 4)));
        }
        return partition(toLong(bytes, 0, 8), toLong(bytes, 8, 16));
    }

    private static long toLong(byte[] bytes, int from, int to) {
        long value = 0;
        for (int i = from; i < to; i++) {
            value = value << 8 | (bytes[i] & 0xFF);
        }
        return value;
    }

    /** For the start-up line: the trusted proxies and the prefixes. */
    public String describe() {
        StringJoiner ranges = new StringJoiner(", ");
        ranges.setEmptyValue("(none)");
        trusted.forEach(range -> ranges.add(range.toString()));
        return "trusted proxies " + ranges + "; client prefixes IPv4 /" + ipv4Prefix + ", IPv6 /" + ipv6Prefix;
    }

    @Override
    public String toString() {
        return "ClientAddresses[" + describe() + "]";
    }

}
