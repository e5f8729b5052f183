package dev.ratelimit.core.address;

import dev.ratelimit.core.log.LogText;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A request from a peer that is not a trusted proxy but carries {@code Forwarded} or
 * {@code X-Forwarded-For} is logged at most once an hour per peer, naming it and
 * {@code ratelimit.trusted-proxies} (behind a load balancer that is missing from that key, everyone is
 * counted as the balancer). Memory is bounded: at most {@value #CAPACITY} peers are remembered; expired
 * entries are swept when the table is full (at most once a minute); a peer that finds the table full of
 * peers named within the hour is not named, but counted in one summary line, at most once an hour.
 *
 * <p>Concurrency: {@code named} maps a peer to the clock reading of its last line; a line is claimed with
 * {@code putIfAbsent} or {@code replace}, so two threads never both name one peer within an hour. The
 * table may exceed its capacity by the number of threads racing past the size check. {@code nextSweep} and
 * {@code nextSummary} are claimed by compare-and-set; {@code unnamed} counts requests since the last summary.
 */
final class UntrustedForwardingLog {

    static final int CAPACITY = 1024;
    static final long HOUR_NANOS = 3_600_000_000_000L;
    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final System.Logger log;
    private final LongSupplier clock;
    private final ConcurrentHashMap<Peer, Long> named = new ConcurrentHashMap<>();
    private final AtomicLong nextSweep;
    private final AtomicLong nextSummary;
    private final AtomicLong unnamed = new AtomicLong();

    UntrustedForwardingLog(System.Logger log, LongSupplier clock) {
        this.log = log;
        this.clock = clock;
        long now = clock.getAsLong();
        this.nextSweep = new AtomicLong(now);
        this.nextSummary = new AtomicLong(now);
    }

    /** A request from the untrusted peer {@code (high, low)} carried forwarded headers. */
    void forwardedFrom(long high, long low) {
        Peer peer = new Peer(high, low);
        long now = clock.getAsLong();
        Long last = named.get(peer);
        if (last != null) {
            if (now - last < HOUR_NANOS || !named.replace(peer, last, now)) {
                return;
            }
        } else {
            if (named.size() >= CAPACITY && !sweep(now)) {
                unnamed(now);
                return;
            }
            if (named.putIfAbsent(peer, now) != null) {
                return;
            }
        }
        String address = LogText.of(AddressText.toString(high, low)); // digits and separators, escaped all the same
        log.log(Level.WARNING, "ratelimit: a request from " + address + " carries Forwarded or X-Forwarded-For, but "
                + address + " is not in ratelimit.trusted-proxies: it is counted as " + address + " and the forwarded "
                + "addresses are ignored. If " + address + " is a proxy or load balancer of yours, add it to "
                + "ratelimit.trusted-proxies (or let the runtime rewrite the peer, and not both). Logged at most once an "
                + "hour per address.");
    }

    /** Removes the peers named more than an hour ago; at most once a minute. @return whether there is room now */
    private boolean sweep(long now) {
        long due = nextSweep.get();
        if (now - due >= 0 && nextSweep.compareAndSet(due, now + MINUTE_NANOS)) {
            named.values().removeIf(last -> now - last >= HOUR_NANOS);
        }
        return named.size() < CAPACITY;
    }

    private void unnamed(long now) {
        long count = unnamed.incrementAndGet();
        long due = nextSummary.get();
        if (now - due < 0 || !nextSummary.compareAndSet(due, now + HOUR_NANOS)) {
            return;
        }
        count = Math.max(1, unnamed.getAndSet(0));
        log.log(Level.WARNING, "ratelimit: " + count + " request(s) from peers that are not in ratelimit.trusted-proxies "
                + "carried Forwarded or X-Forwarded-For, from more than " + CAPACITY + " such peers within an hour (the "
                + "first " + CAPACITY + " are named once an hour each): each is counted by its own address");
    }

    /** How many peers are remembered (tests). */
    int remembered() {
        return named.size();
    }

    private record Peer(long high, long low) {
    }
}
