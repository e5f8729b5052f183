package dev.ratelimit.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyCatalogue.Section;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The generated part of {@code docs/configuration.md}: the tables that a {@link KeyCatalogue} renders, one section per
 * {@link Section}, each key once, between two markers of the page. The whole page is checked where every module that
 * contributes keys is on the class path ({@code docs-tests}); a module's tests can check its own rows
 * ({@link #assertRowsOnThePage}).
 */
public final class ConfigurationReference {

    public static final String BEGIN = "<!-- BEGIN GENERATED from KeyCatalogue: edit the catalogue, not this part -->";
    public static final String END = "<!-- END GENERATED -->";
    /** The system property that makes {@link #assertPageIsRendered} rewrite a stale page: {@code -Dratelimit.docs.write=true}. */
    public static final String WRITE = "ratelimit.docs.write";

    private ConfigurationReference() {
    }

    /**
     * Asserts that the generated part of {@code page} is what {@code catalogue} renders. With {@code -D}{@value #WRITE}
     * {@code =true}, a stale page is rewritten, and the check fails all the same, saying so: a build that writes the
     * page is never green with the page it found.
     */
    public static void assertPageIsRendered(Path page, KeyCatalogue catalogue) {
        String text = read(page);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        assertThat(begin).as("%s in %s", BEGIN, page).isNotNegative();
        assertThat(end).as("%s in %s", END, page).isGreaterThan(begin);
        String expected = text.substring(0, begin + BEGIN.length()) + "\n" + render(catalogue) + text.substring(end);
        if (Boolean.getBoolean(WRITE) && !text.equals(expected)) {
            try {
                Files.writeString(page, expected, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            throw new AssertionError(page + " was out of date and has been rewritten from KeyCatalogue: review the "
                    + "change and commit it, then run the test again");
        }
        assertThat(text).as("%s is generated from KeyCatalogue: regenerate it with -D%s=true", page, WRITE)
                .isEqualTo(expected);
    }

    /** Asserts that the page has the row of every key of {@code catalogue} that {@code artifact} reads, as rendered. */
    public static void assertRowsOnThePage(Path page, KeyCatalogue catalogue, String artifact) {
        String text = read(page);
        int rows = 0;
        for (Key key : catalogue.keys()) {
            if (key.artifact().equals(artifact)) {
                assertThat(text).as("the row of %s in %s (regenerate the page: CONTRIBUTING.md)", key.name(), page)
                        .contains(row(key));
                rows++;
            }
        }
        assertThat(rows).as("the keys of %s", artifact).isPositive();
    }

    /** The tables, one section per {@link Section}, each key once. */
    public static String render(KeyCatalogue catalogue) {
        StringBuilder out = new StringBuilder();
        for (Section section : Section.values()) {
            out.append("\n## ").append(section.title()).append("\n\n");
            out.append("| key | accepts | default | live | meaning |\n|---|---|---|---|---|\n");
            for (Key key : catalogue.keys()) {
                if (key.section() == section) {
                    out.append(row(key));
                }
            }
        }
        return out.append('\n').toString();
    }

    private static String row(Key key) {
        StringBuilder out = new StringBuilder();
        out.append("| `").append(key.name()).append("` | ").append(key.type()).append(" | ")
                .append(defaultText(key)).append(" | ").append(key.live() ? "yes" : "no").append(" | ")
                .append(key.meaning());
        if (!key.artifact().equals("ratelimit-core")) {
            out.append(" Read by `").append(key.artifact()).append("`.");
        }
        return out.append(" |\n").toString();
    }

    private static String defaultText(Key key) {
        if (key.defaultValue() == null) {
            return key.defaultNote() == null ? "unset" : key.defaultNote();
        }
        String value = "`" + key.defaultValue() + "`";
        return key.defaultNote() == null ? value : value + "; " + key.defaultNote();
    }

    private static String read(Path page) {
        try {
            return Files.readString(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
