package dev.ratelimit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratelimit.benchmarks.waiting.WaitingCallers;
import dev.ratelimit.core.RateLimitAlgorithm;
import org.junit.jupiter.api.Test;

/** The waiting harness runs, briefly, in {@code mvn verify}, so that it does not rot. Its numbers mean nothing here. */
class WaitingCallersSmokeTest {

    @Test
    void theHarnessRunsEveryCallerThroughAWaitingLimit() throws Exception {
        WaitingCallers.Result result = WaitingCallers.run(RateLimitAlgorithm.TOKEN_BUCKET, 4, 200, 1, 0);

        assertTrue(result.calls() > 0, "calls went ahead: " + result);
        assertEquals(0, result.refused(), "a minute's wait refuses nobody: " + result);
    }
}
