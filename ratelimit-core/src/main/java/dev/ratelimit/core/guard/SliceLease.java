package dev.ratelimit.core.guard;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/** Permits of one slice call: what the store decided, the units not used yet, until when they may be. */
final class SliceLease {
    static final AtomicIntegerFieldUpdater<SliceLease> UNITS = AtomicIntegerFieldUpdater.newUpdater(SliceLease.class, "units");

    final SliceSite site;
    final RateLimitDecision taken;
    final long sentAt;
    final long endsAt;
    /** Units (times the request's cost) left to use; {@link Slices#CLOSED} once closed. */
    volatile int units;

    SliceLease(SliceSite site, RateLimitDecision taken, int units, long sentAt, long endsAt) {
        this.site = site;
        this.taken = taken;
        this.units = units;
        this.sentAt = sentAt;
        this.endsAt = endsAt;
    }

    /** Takes {@code multiple} units: what is left then, or -1 when there were not enough (or it is closed). */
    int take(int multiple) {
        int u;
        do {
            u = units;
            if (u < multiple) {
                return -1;
            }
        } while (!UNITS.compareAndSet(this, u, u - multiple));
        return u - multiple;
    }

    /**
     * The request's decision from this lease: each limit spent {@code multiple} of its cost, with the store's
     * remaining at the slice call plus what the slice still holds ({@code left} units; never more than the limit),
     * the reset counting down from when the call went; the receipts of the slice, so that a give-back of the
     * request returns its permits to the step they were spent in.
     */
    RateLimitDecision decision(String partition, RateLimitRequest request, int multiple, int left, long now) {
        long elapsed = now - sentAt;
        if (taken.size() == 1) {
            return RateLimitDecision.of(partition, request, multiple, outcome(0, request, left, elapsed));
        }
        Outcome[] outcomes = new Outcome[taken.size()];
        for (int i = 0; i < outcomes.length; i++) {
            outcomes[i] = outcome(i, request, left, elapsed);
        }
        return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
    }

    private Outcome outcome(int i, RateLimitRequest request, int left, long elapsed) {
        Outcome o = taken.outcome(i);
        long remaining = Math.min(o.policy().permitLimit(), o.remaining() + (long) left * request.cost(i));
        long reset = o.resetNanos() < 0 ? -1 : Math.max(1, o.resetNanos() - elapsed);
        return new Outcome(o.policy(), State.SPENT, (int) remaining, reset, 0, o.receipt());
    }
}
