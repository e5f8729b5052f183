package dev.ratelimit.core.address;

import java.util.Locale;
import java.util.Random;

/** Random valid spellings of an address, for the randomized tests: every form RFC 4291 and RFC 7239 allow. */
final class Spellings {

    private Spellings() {
    }

    /** Some valid text for {@code (high, low)}: a dotted quad for an IPv4 address at times, else IPv6 text. */
    static String address(Random random, long high, long low) {
        if (AddressText.isIpv4(high, low) && random.nextInt(3) > 0) {
            return dotted(low);
        }
        return ipv6(random, high, low);
    }

    /** IPv6 text for {@code (high, low)}: "::" over a random run of zero groups (or none), random case and leading zeros, an IPv4 tail at times. */
    static String ipv6(Random random, long high, long low) {
        int[] groups = new int[8];
        for (int g = 0; g < 8; g++) {
            groups[g] = AddressText.group(high, low, g);
        }
        boolean v4Tail = random.nextInt(4) == 0;
        int last = v4Tail ? 6 : 8;
        // a run of zero groups to write as "::", chosen at random among them
        int runFrom = -1;
        int runTo = -1;
        if (random.nextInt(4) > 0) {
            int start = random.nextInt(last);
            for (int g = start; g < last && runFrom < 0; g++) {
                if (groups[g] == 0) {
                    runFrom = g;
                }
            }
            if (runFrom >= 0) {
                runTo = runFrom + 1;
                int max = runFrom + 1 + random.nextInt(last - runFrom);
                while (runTo < max && groups[runTo] == 0) {
                    runTo++;
                }
            }
        }
        StringBuilder text = new StringBuilder();
        for (int g = 0; g < last; g++) {
            if (g == runFrom) {
                text.append("::");
                g = runTo - 1;
                continue;
            }
            if (g > 0 && g != runTo) {
                text.append(':');
            }
            text.append(group(random, groups[g]));
        }
        if (v4Tail) {
            if (runTo != 6) {
                text.append(':');
            }
            text.append(dotted((long) groups[6] << 16 | groups[7]));
        }
        return text.toString();
    }

    private static String group(Random random, int value) {
        String hex = Integer.toHexString(value);
        int zeros = random.nextInt(5 - hex.length());
        String padded = "0".repeat(zeros) + hex;
        return random.nextBoolean() ? padded.toUpperCase(Locale.ROOT) : padded;
    }

    static String dotted(long v4) {
        return ((v4 >>> 24) & 0xFF) + "." + ((v4 >>> 16) & 0xFF) + "." + ((v4 >>> 8) & 0xFF) + "." + (v4 & 0xFF);
    }

    /** A node as a proxy may write it in {@code X-Forwarded-For} or {@code Forwarded}: brackets and a port at times. */
    static String node(Random random, long high, long low) {
        String address = address(random, high, low);
        boolean v6 = address.indexOf(':') >= 0;
        String port = switch (random.nextInt(4)) {
            case 0 -> ":" + random.nextInt(65536);
            case 1 -> ":_p" + random.nextInt(100);
            default -> "";
        };
        if (v6) {
            return port.isEmpty() && random.nextBoolean() ? address : "[" + address + "]" + port;
        }
        return address + port;
    }
}
