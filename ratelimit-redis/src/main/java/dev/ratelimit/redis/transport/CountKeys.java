package dev.ratelimit.redis.transport;

import java.nio.charset.StandardCharsets;

/**
 * The bytes of a count's key, {@code <prefix>{<n>:<partition>}<suffix>}: {@code n} is the partition's length in UTF-8
 * bytes, so the key says where the partition ends whatever it holds; a partition that is not well-formed UTF-16 (a
 * lone surrogate, which UTF-8 cannot carry) is written {@code {x<four hex digits per char>}} instead. The text between
 * the braces is the key's Redis Cluster hash tag: every count of one partition lives in one slot.
 */
public final class CountKeys {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CountKeys() {
    }

    /** The hash tag that every count of the partition carries, braces included. */
    public static String tag(String partition) {
        int bytes = utf8Length(partition);
        if (bytes < 0) {
            StringBuilder hex = new StringBuilder(partition.length() * 4 + 3).append("{x");
            for (int i = 0; i < partition.length(); i++) {
                char c = partition.charAt(i);
                hex.append(HEX[c >>> 12]).append(HEX[(c >>> 8) & 15]).append(HEX[(c >>> 4) & 15]).append(HEX[c & 15]);
            }
            return hex.append('}').toString();
        }
        return "{" + bytes + ':' + partition + '}';
    }

    /** The key of a count: {@code prefix}, the partition's {@link #tag}, {@code suffix}. */
    public static byte[] key(byte[] prefix, String partition, byte[] suffix) {
        byte[] tag = tag(partition).getBytes(StandardCharsets.UTF_8);
        byte[] key = new byte[prefix.length + tag.length + suffix.length];
        System.arraycopy(prefix, 0, key, 0, prefix.length);
        System.arraycopy(tag, 0, key, prefix.length, tag.length);
        System.arraycopy(suffix, 0, key, prefix.length + tag.length, suffix.length);
        return key;
    }

    /** The char of the four lower-case hex digits at {@code key[at ..]}, as {@link #tag} writes them; -1 when they are not. */
    private static int hex(String key, int at) {
        int c = 0;
        for (int i = at; i < at + 4; i++) {
            char h = key.charAt(i);
            int digit = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
            if (digit < 0) {
                return -1;
            }
            c = c << 4 | digit;
        }
        return c;
    }

    /** UTF-8 length of {@code s}; -1 when it holds a lone surrogate. */
    public static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                return -1;
            }
        }
        return bytes;
    }

    /** Decimal digits of {@code value}, {@code >= 0}. */
    public static int digits(long value) {
        int digits = 1;
        for (long v = value; v >= 10; v /= 10) {
            digits++;
        }
        return digits;
    }

    /**
     * The (name, plan, partition) of a count's key, or null when {@code key} is not one under {@code prefix}: the
     * partition, the limit name and its plan (null for callers in no plan).
     */
    public static String[] parse(String prefix, String key) {
        if (!key.startsWith(prefix) || key.length() < prefix.length() + 3 || key.charAt(prefix.length()) != '{') {
            return null;
        }
        int at = prefix.length() + 1;
        String partition;
        int end;
        if (key.charAt(at) == 'x') {
            end = key.indexOf('}', at);
            if (end < 0 || (end - at - 1) % 4 != 0) {
                return null;
            }
            StringBuilder text = new StringBuilder((end - at - 1) / 4);
            for (int i = at + 1; i < end; i += 4) {
                int c = hex(key, i);
                if (c < 0) {
                    return null;
                }
                text.append((char) c);
            }
            partition = text.toString();
        } else {
            int colon = key.indexOf(':', at);
            if (colon < 0) {
                return null;
            }
            int bytes;
            try {
                bytes = Integer.parseInt(key, at, colon, 10);
            } catch (NumberFormatException e) {
                return null;
            }
            // the partition is the shortest text after the colon whose UTF-8 length is that
            int i = colon + 1;
            int seen = 0;
            while (seen < bytes && i < key.length()) {
                char c = key.charAt(i);
                seen += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isHighSurrogate(c) ? 4 : 3;
                i += Character.isHighSurrogate(c) ? 2 : 1;
            }
            if (seen != bytes || i >= key.length() || key.charAt(i) != '}') {
                return null;
            }
            partition = key.substring(colon + 1, i);
            end = i;
        }
        String suffix = key.substring(end + 1);
        int slash = suffix.indexOf('/');
        return new String[] {partition, slash < 0 ? suffix : suffix.substring(0, slash),
                slash < 0 ? null : suffix.substring(slash + 1)};
    }
}
