package dev.ratelimit.redis.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The key of a count read back from an announcement: what {@link CountKeys#key} writes parses to its partition, name
 * and plan; a text that no count's key is, whatever it holds, parses to null and never throws (a malformed message on
 * the channel of announcements used to throw out of the Redis client's listener).
 */
class CountKeysTest {

    @Test
    void aKeyParsesBackToItsPartitionNameAndPlanAndALoneSurrogateToo() {
        for (String partition : new String[] {"X-Api-Key:{odd}:ключ", "", "bad\ud800half"}) {
            String key = new String(CountKeys.key("p:".getBytes(StandardCharsets.UTF_8), partition,
                    "burst/gold".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
            String text = partition.indexOf('\ud800') >= 0 ? "p:" + CountKeys.tag(partition) + "burst/gold" : key;
            assertThat(CountKeys.parse("p:", text)).containsExactly(partition, "burst", "gold");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"p:{xzzzz}burst", "p:{x00g1}burst", "p:{x+041}burst", "p:{x-041}burst", "p:{x0041",
            "p:{x004}burst", "p:{99:abc}burst", "p:{-1:}burst", "p:{3:abcburst", "p:{:abc}burst", "q:{3:abc}burst",
            "p:", "p:{"})
    void aTextThatIsNoCountsKeyParsesToNullWithoutThrowing(String text) {
        assertThat(CountKeys.parse("p:", text)).isNull();
    }
}
