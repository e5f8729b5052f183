package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.core.RateLimitDecision;

/** Set-up checks: a benchmark that measures the refusal path by mistake must fail, not report. */
final class Checks {

    private Checks() {
    }

    static RateLimitDecision allowed(RateLimitDecision decision) {
        if (decision == null || !decision.allowed()) {
            throw new IllegalStateException("expected an allowed decision, got " + decision);
        }
        for (int i = 0; i < decision.size(); i++) {
            if (!decision.outcome(i).spent()) {
                throw new IllegalStateException("expected every limit spent (counted), got " + decision);
            }
        }
        return decision;
    }
}
