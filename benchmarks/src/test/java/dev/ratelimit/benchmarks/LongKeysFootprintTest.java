package dev.ratelimit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratelimit.benchmarks.memory.Footprint;
import org.junit.jupiter.api.Test;

/**
 * A count's memory does not grow with the key a client sends (docs/stores.md, "Capacity"): 10 000 counts keyed by
 * 7.8 KB header values hold at most 5 MB, measured as the object graph the store retains (JOL), not guessed from a
 * heap that the collector may or may not have cleared.
 */
class LongKeysFootprintTest {

    @Test
    void tenThousandCountsKeyedBy7800ByteHeaderValuesHoldAtMost5Megabytes() {
        long bytes = Footprint.longKeysRetained(10_000);

        System.out.printf("10 000 counts keyed by 7.8 KB header values: %d bytes retained (%.1f per count)%n", bytes,
                bytes / 10_000.0);
        assertTrue(bytes <= 5L * 1024 * 1024, "retained " + bytes + " bytes, more than 5 MB");
        assertTrue(bytes >= 10_000L * 64, "retained " + bytes + " bytes: fewer than the counts themselves take");
    }
}
