package dev.ratelimit.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyCatalogue.Section;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} is generated from {@link KeyCatalogue}: the part between its two markers must be what
 * the catalogue renders today. After changing the catalogue, regenerate the page with
 * {@code mvn -pl ratelimit-core test -Dtest=ConfigurationReferenceTest -Dratelimit.docs.write=true}: it writes the page
 * and fails, saying so, when the page was out of date (and passes when it was not), so that no build passes on a
 * stale page. That the catalogue's "live" column is what live values really read again is
 * {@code LiveValuesTest#theKeysReadAgainAreThoseTheReferenceMarksLive}.
 */
class ConfigurationReferenceTest {

    static final String BEGIN = "<!-- BEGIN GENERATED from KeyCatalogue: edit the catalogue, not this part -->";
    static final String END = "<!-- END GENERATED -->";
    private static final Path PAGE = Path.of("..", "docs", "configuration.md");

    @Test
    void theConfigurationPageIsWhatTheCatalogueRenders() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        assertThat(begin).as("%s in %s", BEGIN, PAGE).isNotNegative();
        assertThat(end).as("%s in %s", END, PAGE).isGreaterThan(begin);
        String expected = page.substring(0, begin + BEGIN.length()) + "\n" + render() + page.substring(end);
        if (Boolean.getBoolean("ratelimit.docs.write") && !page.equals(expected)) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            // a build that writes the page is never green with the page it found: CI cannot pass on a stale page
            throw new AssertionError(PAGE + " was out of date and has been rewritten from KeyCatalogue: review the "
                    + "change and commit it, then run the test again");
        }
        assertThat(page).as("%s is generated from KeyCatalogue: regenerate it with -Dratelimit.docs.write=true", PAGE)
                .isEqualTo(expected);
    }

    /** The tables, one section per {@link Section}, each key once. */
    static String render() {
        StringBuilder out = new StringBuilder();
        for (Section section : Section.values()) {
            out.append("\n## ").append(section.title()).append("\n\n");
            out.append("| key | accepts | default | live | meaning |\n|---|---|---|---|---|\n");
            for (Key key : KeyCatalogue.keys()) {
                if (key.section() == section) {
                    out.append("| `").append(key.name()).append("` | ").append(key.type()).append(" | ")
                            .append(defaultText(key)).append(" | ").append(key.live() ? "yes" : "no").append(" | ")
                            .append(key.meaning());
                    if (!key.artifact().equals("ratelimit-core")) {
                        out.append(" Read by `").append(key.artifact()).append("`.");
                    }
                    out.append(" |\n");
                }
            }
        }
        return out.append('\n').toString();
    }

    private static String defaultText(Key key) {
        if (key.defaultValue() == null) {
            return key.defaultNote() == null ? "unset" : key.defaultNote();
        }
        String value = "`" + key.defaultValue() + "`";
        return key.defaultNote() == null ? value : value + "; " + key.defaultNote();
    }
}
