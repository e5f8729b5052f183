package dev.ratelimit.core.address;

/**
 * The elements of a {@code Forwarded} header (RFC 7239 4), from the left, each reduced to its {@code for=}
 * node: an address, or not one. An element is not an address when it has no {@code for}, has it twice, is
 * malformed (a pair without {@code =}, an unterminated quoted string, text after a value), or its node is
 * {@code unknown}, obfuscated ({@code _hidden}) or garbage.
 *
 * <p>Lenient where it cannot help a client: whitespace around {@code ;}, parameter names in any case, and
 * an unquoted node with a port or brackets ({@code for=192.0.2.1:80}) as some proxies write it. A quoted
 * string may hold {@code ,} and {@code ;}; a backslash escapes the next character, and a node with an
 * escape in it is not an address. Allocates nothing; one per header, not thread-safe.
 */
final class ForwardedElements {

    /** The node of the current element, when {@link #isAddress()}. */
    private final AddressText.Bits hop;
    private final String header;
    private int position;
    private boolean done;
    private boolean address;

    /** @param hop where each element's node is parsed to */
    ForwardedElements(String header, AddressText.Bits hop) {
        this.header = header;
        this.hop = hop;
    }

    /** Moves to the next element. @return false when there is none */
    boolean next() {
        if (done) {
            return false;
        }
        address = element();
        if (position >= header.length()) {
            done = true;
        } else {
            position++; // the comma
        }
        return true;
    }

    /** Whether the current element's {@code for=} node is an address (then in {@link #hop}). */
    boolean isAddress() {
        return address;
    }

    /** Reads one element up to its comma (or the end); @return whether it has exactly one {@code for} that is an address */
    private boolean element() {
        String s = header;
        int end = s.length();
        int fors = 0;
        int forFrom = 0;
        int forTo = 0;
        int i = position;
        while (true) {
            while (i < end && ClientAddresses.isSpace(s.charAt(i))) {
                i++;
            }
            if (i == end || s.charAt(i) == ',') {
                break;
            }
            if (s.charAt(i) == ';') {
                i++;
                continue;
            }
            int nameFrom = i;
            while (i < end && isTokenChar(s.charAt(i))) {
                i++;
            }
            if (i == nameFrom || i == end || s.charAt(i) != '=') {
                position = skipToComma(i);
                return false;
            }
            boolean isFor = i - nameFrom == 3 && s.regionMatches(true, nameFrom, "for", 0, 3);
            i++;
            int valueFrom;
            int valueTo;
            if (i < end && s.charAt(i) == '"') {
                valueFrom = ++i;
                while (i < end && s.charAt(i) != '"') {
                    i += s.charAt(i) == '\\' ? 2 : 1;
                }
                if (i >= end) {
                    position = end; // unterminated: the rest of the header is this element
                    return false;
                }
                valueTo = i++;
            } else {
                valueFrom = i;
                while (i < end && isUnquotedValueChar(s.charAt(i))) {
                    i++;
                }
                valueTo = i;
            }
            if (isFor) {
                fors++;
                forFrom = valueFrom;
                forTo = valueTo;
            }
            while (i < end && ClientAddresses.isSpace(s.charAt(i))) {
                i++;
            }
            if (i < end && s.charAt(i) != ';' && s.charAt(i) != ',') {
                position = skipToComma(i);
                return false;
            }
        }
        position = i;
        return fors == 1 && AddressText.node(s, forFrom, forTo, hop);
    }

    /** The index of the next comma outside a quoted string, or the end. */
    private int skipToComma(int from) {
        String s = header;
        int end = s.length();
        boolean quoted = false;
        for (int i = from; i < end; i++) {
            char c = s.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                return i;
            }
        }
        return end;
    }

    /** RFC 9110 tchar. */
    private static boolean isTokenChar(char c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            return true;
        }
        return "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    /** An unquoted value runs to the next separator; what it holds is judged by the node parser. */
    private static boolean isUnquotedValueChar(char c) {
        return c != ',' && c != ';' && c != '"' && !ClientAddresses.isSpace(c);
    }
}
