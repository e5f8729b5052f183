package dev.ratelimit.core.address;

/**
 * An address or a CIDR range ({@code 10.0.0.0/8}, {@code 192.168.1.7}, {@code fd00::/8}), as an entry of
 * {@code ratelimit.trusted-proxies}: a network and a prefix over the 128 bits that {@link AddressText} uses
 * (an IPv4 range {@code /N} is the IPv4-mapped range {@code /96+N}). Immutable.
 *
 * @param high the network's upper 64 bits
 * @param low  the network's lower 64 bits
 * @param bits the prefix length over 128 bits (0-128)
 */
public record AddressRange(long high, long low, int bits) {

    public AddressRange {
        if (bits < 0 || bits > 128) {
            throw new IllegalArgumentException("a prefix over 128 bits is 0-128, was " + bits);
        }
        if ((high & ~maskHigh(bits)) != 0 || (low & ~maskLow(bits)) != 0) {
            throw new IllegalArgumentException("the network has bits set beyond its prefix");
        }
    }

    /**
     * Parses an address ({@code 192.0.2.7}, {@code 2001:db8::1}) or a CIDR range ({@code 10.0.0.0/8},
     * {@code fd00::/8}). Zone ids and names are refused.
     *
     * @throws IllegalArgumentException saying what is wrong, when the text is neither
     */
    public static AddressRange parse(String text) {
        String entry = text.strip();
        int slash = entry.indexOf('/');
        String address = slash < 0 ? entry : entry.substring(0, slash);
        AddressText.Bits bits = new AddressText.Bits();
        if (address.indexOf('%') >= 0 || !AddressText.address(address, 0, address.length(), bits)) {
            throw new IllegalArgumentException("\"" + entry + "\" is not an IP address or CIDR range");
        }
        boolean v4 = address.indexOf(':') < 0;
        int width = v4 ? 32 : 128;
        int prefix = width;
        if (slash >= 0) {
            prefix = prefixLength(entry, slash + 1, width);
        }
        int over128 = v4 ? 96 + prefix : prefix;
        if ((bits.high & ~maskHigh(over128)) != 0 || (bits.low & ~maskLow(over128)) != 0) {
            AddressRange network = new AddressRange(bits.high & maskHigh(over128), bits.low & maskLow(over128), over128);
            throw new IllegalArgumentException("\"" + entry + "\" has bits set beyond its /" + prefix + " prefix (the range is "
                    + network + ")");
        }
        return new AddressRange(bits.high, bits.low, over128);
    }

    private static int prefixLength(String entry, int from, int width) {
        int to = entry.length();
        if (from == to || to - from > 3) {
            throw new IllegalArgumentException("\"" + entry + "\": the prefix after / must be a number from 0 to " + width);
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = entry.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("\"" + entry + "\": the prefix after / must be a number from 0 to " + width);
            }
            value = value * 10 + (c - '0');
        }
        if (value > width) {
            throw new IllegalArgumentException("\"" + entry + "\": an " + (width == 32 ? "IPv4" : "IPv6")
                    + " prefix is at most /" + width + ", was /" + value);
        }
        return value;
    }

    /** Whether the address {@code (high, low)} lies in this range. */
    public boolean contains(long high, long low) {
        return ((high ^ this.high) & maskHigh(bits)) == 0 && ((low ^ this.low) & maskLow(bits)) == 0;
    }

    /** The mask of the upper 64 bits for a prefix over 128 bits. */
    static long maskHigh(int bits) {
        return bits >= 64 ? -1L : bits == 0 ? 0 : -1L << (64 - bits);
    }

    /** The mask of the lower 64 bits for a prefix over 128 bits. */
    static long maskLow(int bits) {
        return bits <= 64 ? 0 : -1L << (128 - bits);
    }

    /** The canonical text: {@code 10.0.0.0/8}, {@code fd00::/8}, or the address alone for a full-width range. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(50);
        boolean v4 = AddressText.isIpv4(high, low) && bits >= 96;
        if (AddressText.isIpv4(high, low) && !v4) {
            text.append("::ffff:"); // an IPv6 range wider than the IPv4 space, in RFC 5952 5's mixed notation
        }
        AddressText.append(text, high, low);
        int prefix = v4 ? bits - 96 : bits;
        if (prefix < (v4 ? 32 : 128)) {
            text.append('/').append(prefix);
        }
        return text.toString();
    }
}
