package dev.ratelimit.core.config;

import dev.ratelimit.core.testing.ConfigurationReference;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} has the row of every key of the core, as {@link KeyCatalogue} renders it. The whole
 * generated part, every module's keys included, is checked in {@code docs-tests} ({@code ConfigurationReferenceTest}
 * there, which also regenerates the page: CONTRIBUTING.md). That the catalogue's "live" column is what live values
 * really read again is {@code LiveValuesTest#theKeysReadAgainAreThoseTheReferenceMarksLive}.
 */
class CoreKeysOnTheConfigurationPageTest {

    private static final Path PAGE = Path.of("..", "docs", "configuration.md");

    @Test
    void theConfigurationPageHasTheRowOfEveryKeyOfTheCore() {
        ConfigurationReference.assertRowsOnThePage(PAGE, KeyCatalogue.installed(), "ratelimit-core");
    }
}
