package dev.ratelimit.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The spellings of one path the admin filter takes for one (RFC 3986, 6.2.2): unreserved characters decoded, dot
 * segments removed, every other percent-encoding kept. Over HTTP on every runtime: tck-tests' {@code AdminPathTest}.
 */
class AdminPathFilterTest {

    @ParameterizedTest
    @CsvSource({
            "/ratelimit/limits, /ratelimit/limits",
            "/%72atelimit/limits, /ratelimit/limits",
            "/ra%74elimi%74/%6cimits, /ratelimit/limits",
            "/todos/../ratelimit/limits, /ratelimit/limits",
            "/todos/%2E%2E/ratelimit/limits, /ratelimit/limits",
            "/%2e/ratelimit/./limits, /ratelimit/limits",
            "/ratelimit/limits/../limits, /ratelimit/limits",
            "/../../ratelimit, /ratelimit",
            "/ratelimit/limits/.., /ratelimit/",
            "/ratelimit/., /ratelimit/",
            "/ratelimit%2Flimits, /ratelimit%2Flimits",
            "/ratelimit/limits/default/partitions/X-Api-Key:a%20b, /ratelimit/limits/default/partitions/X-Api-Key:a%20b",
            "/ratelimit/%zz/%4, /ratelimit/%zz/%4",
            "/a..b/.c/c., /a..b/.c/c.",
    })
    void aPathIsNormalisedAsRfc3986Says(String path, String normalised) {
        assertThat(AdminPathFilter.normalize(path)).isEqualTo(normalised);
    }
}
