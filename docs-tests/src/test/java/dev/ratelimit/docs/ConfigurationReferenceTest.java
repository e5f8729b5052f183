package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.testing.ConfigurationReference;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} is generated from the {@link KeyCatalogue}: the core's keys and those the store modules
 * contribute ({@code ratelimit-redis}, {@code ratelimit-jcache}, both on this module's test class path). The part
 * between its two markers must be what the catalogue renders today. After changing a key, regenerate the page with
 * {@code mvn -o -pl docs-tests -am test -Dtest=ConfigurationReferenceTest -Dratelimit.docs.write=true
 * -Dsurefire.failIfNoSpecifiedTests=false}: it writes the page and fails, saying so, when the page was out of date
 * (and passes when it was not), so that no build passes on a stale page.
 */
class ConfigurationReferenceTest {

    private static final Path PAGE = Path.of("..", "docs", "configuration.md");

    @Test
    void theConfigurationPageIsWhatTheCatalogueOfEveryModuleRenders() {
        KeyCatalogue catalogue = KeyCatalogue.installed();
        assertThat(catalogue.keys()).extracting(KeyCatalogue.Key::artifact).as("the modules whose keys the page lists")
                .contains("ratelimit-core", "ratelimit-redis", "ratelimit-jcache");

        ConfigurationReference.assertPageIsRendered(PAGE, catalogue);
    }
}
