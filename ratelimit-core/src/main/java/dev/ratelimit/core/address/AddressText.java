package dev.ratelimit.core.address;

import java.nio.charset.StandardCharsets;

/**
 * IP address text to 128 bits and back, by hand, for finding the client address: dotted quads, RFC 4291 IPv6 text (with
 * an embedded IPv4 tail and a zone id, which is dropped), and the node forms that {@code Forwarded} and
 * {@code X-Forwarded-For} carry ({@code [v6]:port}, {@code v4:port}). No regular expression and no
 * {@code InetAddress.getByName}, which looks a name up in DNS when the text is not an address: this text
 * comes from clients. Parsing allocates nothing.
 *
 * <p>One job, both ways: the parser and the formatter are two sides of one 128-bit form (IPv4 held mapped, eight
 * groups of 16 bits), so they stay together; what the text means (the walk over forwarded hops, the prefix) is
 * {@link ClientAddresses}'.
 *
 * <p>An IPv4 address is held as its IPv4-mapped IPv6 form {@code ::ffff:a.b.c.d} (RFC 4291 2.5.5.2), so
 * that the two spellings of one client are one value, and one 128-bit comparison serves both families.
 *
 * <p>Strict where text is ambiguous: a dotted quad has exactly four decimal parts without leading zeros
 * ({@code 010.0.0.1} is octal to some parsers and decimal to others), so such text is not an address.
 */
final class AddressText {

    /** The longest node text that may be an address (64 characters, as docs/partitions.md says); longer is garbage. */
    static final int MAX_NODE_LENGTH = 64;
    /** The upper 64 bits of an IPv4-mapped address are zero; the lower carry {@code 0000:ffff:a.b.c.d}. */
    static final long MAPPED = 0x0000_FFFF_0000_0000L;

    /** The 128 bits of the last address parsed into it. One per walk; not shared between threads. */
    static final class Bits {
        long high;
        long low;

        void set(long high, long low) {
            this.high = high;
            this.low = low;
        }

        void ipv4(long address) {
            set(0, MAPPED | address);
        }
    }

    private AddressText() {
    }

    static boolean isIpv4(long high, long low) {
        return high == 0 && (low & 0xFFFF_FFFF_0000_0000L) == MAPPED;
    }

    /**
     * A dotted quad in {@code text[from, to)}: its 32 bits, or -1 when the text is not exactly four decimal
     * parts of 0-255 without leading zeros.
     */
    static long ipv4(CharSequence text, int from, int to) {
        long value = 0;
        int parts = 0;
        int i = from;
        while (true) {
            int start = i;
            int part = 0;
            while (i < to && i - start < 3 && isDigit(text.charAt(i))) {
                part = part * 10 + (text.charAt(i) - '0');
                i++;
            }
            if (i == start || part > 255 || (i - start > 1 && text.charAt(start) == '0')
                    || (i < to && isDigit(text.charAt(i)))) {
                return -1;
            }
            value = value << 8 | part;
            parts++;
            if (i == to) {
                return parts == 4 ? value : -1;
            }
            if (parts == 4 || text.charAt(i) != '.') {
                return -1;
            }
            i++;
        }
    }

    /**
     * RFC 4291 IPv6 text in {@code text[from, to)}, with an optional zone id ({@code %eth0}, also as
     * {@code %25eth0}), which is dropped. @return false when it is not one
     */
    static boolean ipv6(CharSequence text, int from, int to, Bits out) {
        // the zone id, when there is one, is found where a group ends on '%' (no separate pass over the text)
        int end = to;
        if (end - from < 2) {
            return false;
        }
        // groups before "::" in (headHigh, headLow), after it in (tailHigh, tailLow), each pushed from the right
        long headHigh = 0;
        long headLow = 0;
        long tailHigh = 0;
        long tailLow = 0;
        int head = 0;
        int tail = 0;
        boolean gap = false;
        int i = from;
        if (text.charAt(i) == ':') {
            if (text.charAt(i + 1) != ':') {
                return false;
            }
            gap = true;
            i += 2;
        }
        while (i < end) {
            int start = i;
            int group = 0;
            int digit;
            while (i < end && i - start < 4 && (digit = hex(text.charAt(i))) >= 0) {
                group = group << 4 | digit;
                i++;
            }
            if (i < end && text.charAt(i) == '.') {
                int zone = indexOf(text, '%', i, end);
                if (zone >= 0) {
                    if (!isZone(text, zone + 1, end)) {
                        return false;
                    }
                    end = zone;
                }
                long v4 = ipv4(text, start, end);
                if (v4 < 0) {
                    return false;
                }
                // the last 32 bits: two groups
                if (gap) {
                    tailHigh = tailHigh << 32 | tailLow >>> 32;
                    tailLow = tailLow << 32 | v4;
                    tail += 2;
                } else {
                    headHigh = headHigh << 32 | headLow >>> 32;
                    headLow = headLow << 32 | v4;
                    head += 2;
                }
                i = end;
                break;
            }
            if (i == start || (i < end && hex(text.charAt(i)) >= 0) || head + tail == 8) {
                return false;
            }
            if (gap) {
                tailHigh = tailHigh << 16 | tailLow >>> 48;
                tailLow = tailLow << 16 | group;
                tail++;
            } else {
                headHigh = headHigh << 16 | headLow >>> 48;
                headLow = headLow << 16 | group;
                head++;
            }
            if (i < end && text.charAt(i) == '%') {
                if (!isZone(text, i + 1, end)) {
                    return false;
                }
                end = i;
            }
            if (i == end) {
                break;
            }
            if (text.charAt(i) != ':' || ++i == end) {
                return false;
            }
            if (text.charAt(i) == ':') {
                if (gap) {
                    return false;
                }
                gap = true;
                i++;
            }
        }
        int groups = head + tail;
        if (gap ? groups > 7 : groups != 8) {
            return false;
        }
        if (!gap) {
            out.set(headHigh, headLow);
            return true;
        }
        // the head's groups move left past the zeros that "::" stands for
        int shift = 16 * (8 - head);
        long high;
        long low;
        if (head == 0) {
            high = 0;
            low = 0;
        } else if (shift >= 64) {
            high = headLow << (shift - 64);
            low = 0;
        } else {
            high = headHigh << shift | headLow >>> (64 - shift);
            low = headLow << shift;
        }
        out.set(high | tailHigh, low | tailLow);
        return true;
    }

    /** A dotted quad or IPv6 text (zone id dropped), without brackets or port. @return false when it is neither */
    static boolean address(CharSequence text, int from, int to, Bits out) {
        if (to - from > MAX_NODE_LENGTH) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == ':') {
                return ipv6(text, from, to, out);
            }
        }
        long v4 = ipv4(text, from, to);
        if (v4 < 0) {
            return false;
        }
        out.ipv4(v4);
        return true;
    }

    /**
     * A hop as proxies write it, in {@code X-Forwarded-For} or as a {@code Forwarded} node (RFC 7239 6, quotes
     * already removed): {@code 192.0.2.1}, {@code 192.0.2.1:4711}, {@code 2001:db8::1}, {@code [2001:db8::1]},
     * {@code [2001:db8::1]:4711}; a port may be obfuscated ({@code _abc}). Ports are dropped. At most
     * {@value #MAX_NODE_LENGTH} characters. {@code unknown} and obfuscated names ({@code _hidden}) are not
     * addresses. @return false when the text is not an address
     */
    static boolean node(CharSequence text, int from, int to, Bits out) {
        if (to <= from || to - from > MAX_NODE_LENGTH) {
            return false;
        }
        if (text.charAt(from) == '[') {
            int close = indexOf(text, ']', from + 1, to);
            if (close < 0 || !ipv6(text, from + 1, close, out)) {
                return false;
            }
            return close + 1 == to || (text.charAt(close + 1) == ':' && port(text, close + 2, to));
        }
        int colon = indexOf(text, ':', from, to);
        if (colon < 0) {
            long v4 = ipv4(text, from, to);
            if (v4 < 0) {
                return false;
            }
            out.ipv4(v4);
            return true;
        }
        if (indexOf(text, ':', colon + 1, to) < 0) {
            // one colon: an IPv4 address and its port (IPv6 text has at least two)
            long v4 = ipv4(text, from, colon);
            if (v4 < 0 || !port(text, colon + 1, to)) {
                return false;
            }
            out.ipv4(v4);
            return true;
        }
        return ipv6(text, from, to, out);
    }

    /** Appends the canonical text: a dotted quad for IPv4, RFC 5952 for IPv6 (lower case, longest zero run as "::"). */
    static void append(StringBuilder out, long high, long low) {
        out.append(toText("", high, low, -1));
    }

    /** The canonical text of an address. */
    static String toString(long high, long low) {
        return toText("", high, low, -1);
    }

    /**
     * {@code head} (ASCII), then the canonical text of the address (a dotted quad for IPv4; RFC 5952 for IPv6:
     * lower case, no leading zeros, the longest run of two or more zero groups as "::", the first of equals), then
     * {@code /suffix} when {@code suffix >= 0}. Written into one buffer: a partition is made per request.
     */
    static String toText(String head, long high, long low, int suffix) {
        byte[] out = new byte[head.length() + 39 + 4];
        int n = 0;
        for (int i = 0; i < head.length(); i++) {
            out[n++] = (byte) head.charAt(i);
        }
        if (isIpv4(high, low)) {
            for (int shift = 24; shift >= 0; shift -= 8) {
                n = decimal(out, n, (int) (low >>> shift) & 0xFF);
                if (shift > 0) {
                    out[n++] = '.';
                }
            }
        } else {
            int bestStart = -1;
            int bestLength = 1;
            int runStart = -1;
            for (int g = 0; g <= 8; g++) {
                if (g < 8 && group(high, low, g) == 0) {
                    if (runStart < 0) {
                        runStart = g;
                    }
                } else if (runStart >= 0) {
                    if (g - runStart > bestLength) {
                        bestStart = runStart;
                        bestLength = g - runStart;
                    }
                    runStart = -1;
                }
            }
            for (int g = 0; g < 8; g++) {
                if (g == bestStart) {
                    out[n++] = ':';
                    out[n++] = ':';
                    g += bestLength - 1;
                    continue;
                }
                if (g > 0 && g != bestStart + bestLength) {
                    out[n++] = ':';
                }
                n = hex(out, n, group(high, low, g));
            }
        }
        if (suffix >= 0) {
            out[n++] = '/';
            n = decimal(out, n, suffix);
        }
        return new String(out, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** Writes 0-999 in decimal; returns the next index. */
    private static int decimal(byte[] out, int n, int value) {
        if (value >= 100) {
            out[n++] = (byte) ('0' + value / 100);
            value %= 100;
            out[n++] = (byte) ('0' + value / 10);
        } else if (value >= 10) {
            out[n++] = (byte) ('0' + value / 10);
        }
        out[n++] = (byte) ('0' + value % 10);
        return n;
    }

    /** Writes a 16-bit group in lower-case hex without leading zeros; returns the next index. */
    private static int hex(byte[] out, int n, int group) {
        for (int shift = 12; shift > 0; shift -= 4) {
            if (group >>> shift != 0) {
                out[n++] = (byte) HEX[(group >>> shift) & 0xF];
            }
        }
        out[n++] = (byte) HEX[group & 0xF];
        return n;
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** The 16-bit group {@code g} (0 is the leftmost). */
    static int group(long high, long low, int g) {
        long half = g < 4 ? high : low;
        return (int) (half >>> (48 - 16 * (g & 3))) & 0xFFFF;
    }

    /** RFC 7239 node-port: 1-5 digits up to 65535, or an obfuscated port ({@code _} then letters, digits, {@code ._-}). */
    private static boolean port(CharSequence text, int from, int to) {
        if (from >= to) {
            return false;
        }
        if (text.charAt(from) == '_') {
            return from + 1 < to && isObfuscated(text, from + 1, to);
        }
        if (to - from > 5) {
            return false;
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            if (!isDigit(text.charAt(i))) {
                return false;
            }
            value = value * 10 + (text.charAt(i) - '0');
        }
        return value <= 65535;
    }

    private static boolean isObfuscated(CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!(isAlphanumeric(c) || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** A zone id: one or more RFC 3986 unreserved characters (and '%', for the URI form {@code %25eth0}). */
    private static boolean isZone(CharSequence text, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!(isAlphanumeric(c) || c == '.' || c == '_' || c == '-' || c == '~' || c == '%')) {
                return false;
            }
        }
        return true;
    }

    static int indexOf(CharSequence text, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isAlphanumeric(char c) {
        return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
