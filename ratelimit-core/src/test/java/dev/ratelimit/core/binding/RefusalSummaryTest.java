package dev.ratelimit.core.binding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.binding.RefusalSummary.Refused;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The most refused partitions (the admin API): Space-Saving's bound on memory and its guarantee. */
class RefusalSummaryTest {

    @Test
    void aHundredThousandDistinctRefusedPartitionsLeaveAtMostItsCapacityInMemory() {
        RefusalSummary summary = new RefusalSummary(RefusalSummary.DEFAULT_CAPACITY);
        for (int i = 0; i < 100_000; i++) {
            summary.refused("X-Api-Key:caller-" + i);
        }
        assertThat(summary.size()).isEqualTo(RefusalSummary.DEFAULT_CAPACITY);
        assertThat(summary.total()).isEqualTo(100_000);
        assertThat(summary.top(1_000)).hasSize(RefusalSummary.DEFAULT_CAPACITY);
    }

    /** Randomized: any order of 100 000 refusals, 10% of them one caller's, among 90 000 others. */
    @RepeatedTest(20)
    void aCallerWithATenthOfTheRefusalsIsAlwaysListedFirstWithAnHonestCount() {
        Random random = new Random();
        long seed = random.nextLong();
        random.setSeed(seed);
        RefusalSummary summary = new RefusalSummary(RefusalSummary.DEFAULT_CAPACITY);
        Map<String, Integer> truth = new HashMap<>();
        int heavy = 0;
        for (int i = 0; i < 100_000; i++) {
            String partition;
            if (random.nextInt(10) == 0) {
                partition = "X-Api-Key:heavy";
                heavy++;
            } else {
                partition = "X-Api-Key:" + random.nextInt(1_000_000);
            }
            truth.merge(partition, 1, Integer::sum);
            summary.refused(partition);
        }
        List<Refused> top = summary.top(3);
        assertThat(top.get(0).partition()).as("seed %d", seed).isEqualTo("X-Api-Key:heavy");
        assertThat(top.get(0).count()).as("seed %d", seed).isGreaterThanOrEqualTo(heavy);
        assertThat(top.get(0).count() - top.get(0).overcount()).as("seed %d", seed).isLessThanOrEqualTo(heavy);
        for (Refused r : summary.top(RefusalSummary.DEFAULT_CAPACITY)) {
            int actual = truth.get(r.partition());
            assertThat(r.count()).as("%s, seed %d", r, seed).isGreaterThanOrEqualTo(actual);
            assertThat(r.count() - r.overcount()).as("%s, seed %d", r, seed).isLessThanOrEqualTo(actual);
        }
    }

    @Test
    void countsAreExactWhileTheSummaryHasRoom() {
        RefusalSummary summary = new RefusalSummary(3);
        for (int i = 0; i < 5; i++) {
            summary.refused("X-Api-Key:K2");
        }
        summary.refused("sub:bob");
        summary.refused("sub:bob");
        summary.refused("anonymous");
        assertThat(summary.top(3)).containsExactly(new Refused("X-Api-Key:K2", 5, 0), new Refused("sub:bob", 2, 0),
                new Refused("anonymous", 1, 0));
        assertThat(summary.top(1)).containsExactly(new Refused("X-Api-Key:K2", 5, 0));
    }

    @Test
    void aNewPartitionTakesThePlaceOfTheFewestAndInheritsTheirCountAsOvercount() {
        RefusalSummary summary = new RefusalSummary(2);
        summary.refused("a");
        summary.refused("a");
        summary.refused("b");
        summary.refused("c");
        assertThat(summary.top(2)).containsExactly(new Refused("a", 2, 0), new Refused("c", 2, 1));
    }
}
