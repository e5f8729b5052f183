package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the client-address classes share: the server's mode, fresh client addresses, and a request that
 * spends one permit of the module limit ({@code GET} of a missing todo: 404 from the method, which spends).
 *
 * <p>{@value #MODE_PROPERTY} says how the server under test was started: {@value #UNTRUSTED_PEER}
 * ({@code ratelimit.partition-by=principal,header,address}, no trusted proxy) or {@value #TRUSTED_PROXIES} (the
 * same, with {@code ratelimit.trusted-proxies=127.0.0.0/8,::1}). Each class runs only in a run of its own, against a
 * server started in its mode, and fails in any other (the suite's other runs leave client addresses off, as the example
 * ships, and never include these classes).
 */
final class ClientAddressCounts {

    static final String MODE_PROPERTY = "tck.clientAddresses";
    static final String UNTRUSTED_PEER = "untrusted-peer";
    static final String TRUSTED_PROXIES = "trusted-proxies";
    static final String MODULE = TckTestBase.MODULE;
    /** A fresh count of the module limit shows this after its first request. */
    static final long FRESH = 99;
    /** Attempts at observing a count that earlier requests share (one of their permits may return meanwhile). */
    private static final int SHARED_ATTEMPTS = 3;

    private ClientAddressCounts() {
    }

    /**
     * Fails unless the server under test was started in {@code mode}: these classes run only in a run of their own
     * (a failsafe or surefire execution that names them, their class names ending in {@code IT} so that the suite's
     * other runs never pick them up), and such a run that lost its {@value #MODE_PROPERTY} must fail, not skip.
     */
    static void requireMode(String mode) {
        assertThat(System.getProperty(MODE_PROPERTY))
                .as("%s: the mode the server under test partitions by client address in (this class runs only in a run "
                        + "of its own, against a server started for it)", MODE_PROPERTY)
                .isEqualTo(mode);
    }

    /** One request spending one permit of the module limit; the permits it has left. */
    static long spend(Caller caller) {
        Reply reply = caller.get(TckTestBase.MISSING_TODO).assertStatus(404);
        return reply.remaining(MODULE);
    }

    /**
     * Asserts that the requests share one count whose earlier permits may return meanwhile: each spends one more
     * from the count the first one spent from (in one of a few attempts, when a returned permit blurred one).
     */
    static void assertShareOneCount(String what, LongSupplier... requests) {
        long[] seen = new long[requests.length];
        for (int attempt = 1; attempt <= SHARED_ATTEMPTS; attempt++) {
            boolean consecutive = true;
            for (int i = 0; i < requests.length; i++) {
                seen[i] = requests[i].getAsLong();
                if (i > 0 && seen[i] != seen[i - 1] - 1) {
                    consecutive = false;
                }
            }
            if (consecutive) {
                return;
            }
            if (attempt < SHARED_ATTEMPTS) {
                boolean blurred = true; // a returned permit only ever raises a count: never a fresh count below it
                for (int i = 1; i < requests.length; i++) {
                    blurred &= seen[i] >= seen[i - 1] - 1 && seen[i] < FRESH;
                }
                if (!blurred) {
                    break;
                }
            }
        }
        assertThat(seen).as("%s: the module limit's permits left after each request, one count spent from", what)
                .containsExactly(consecutive(seen[0], requests.length));
    }

    private static long[] consecutive(long first, int n) {
        long[] expected = new long[n];
        for (int i = 0; i < n; i++) {
            expected[i] = first - i;
        }
        return expected;
    }

    /** A random IPv4 address in 100.64.0.0/10 (never a trusted proxy here), for a count of its own. */
    static String freshIpv4() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "100." + (64 + random.nextInt(64)) + "." + random.nextInt(256) + "." + (1 + random.nextInt(254));
    }

    /**
     * A random IPv6 /64 of 2001:db8::/32 (documentation), written {@code 2001:db8:x:y:}: append the four groups of an
     * interface id ({@code 1:2:3:4}), or {@code :} and fewer ({@code :1}, for {@code 2001:db8:x:y::1}).
     */
    static String freshIpv6Slash64() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "2001:db8:" + Integer.toHexString(random.nextInt(0x10000)) + ":" + Integer.toHexString(random.nextInt(0x10000)) + ":";
    }

    /** A random address of 127.0.0.0/8 (a trusted proxy in mode {@value #TRUSTED_PROXIES}), for a count of its own. */
    static String freshLoopback() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "127." + (1 + random.nextInt(254)) + "." + random.nextInt(256) + "." + (1 + random.nextInt(254));
    }

    static Caller forwardedFor(ServerUnderTest server, String... lines) {
        return server.anonymous().withHeaderLines("X-Forwarded-For", lines);
    }

    static Caller forwarded(ServerUnderTest server, String... lines) {
        return server.anonymous().withHeaderLines("Forwarded", lines);
    }
}
