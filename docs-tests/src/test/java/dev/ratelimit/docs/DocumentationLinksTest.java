package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The front page and {@code docs/} hold together: every relative link reaches a file of the repository, and every
 * {@code #anchor} a heading of its page (as GitHub names headings); every page of {@code docs/} is linked from the
 * front page, which stays short; and no page cites a document outside the repository.
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("(?<!!)\\[([^\\]]*)]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern OUTSIDE = Pattern.compile(
            "\\bspec \\d|\\bstyle\\.md|\\bdesign-notes|\\brecipes\\.md", Pattern.CASE_INSENSITIVE);
    private static final int FRONT_PAGE_LINES = 250;

    /** The pages checked: the front page, the pages of docs/, and the other Markdown files at the root. */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        for (String name : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
            pages.add(ROOT.resolve(name));
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    @Test
    void everyRelativeLinkReachesAFileAndEveryAnchorAHeading() throws IOException {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            assertThat(page).as("a page of the documentation").exists();
            for (String target : links(Files.readString(page, StandardCharsets.UTF_8))) {
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // https:, mailto: ...: outside the repository
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                    continue;
                }
                if (hash >= 0) {
                    String anchor = target.substring(hash + 1);
                    Set<String> known = anchors.computeIfAbsent(resolved, DocumentationLinksTest::anchorsOf);
                    if (!known.contains(anchor)) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no heading with that anchor in "
                                + ROOT.relativize(resolved) + ")");
                    }
                }
            }
        }
        assertThat(broken).as("broken relative links").isEmpty();
        assertThat(checked).as("relative links checked").isGreaterThan(50);
    }

    @Test
    void theFrontPageIsShortAndLinksEveryPageOfTheDocs() throws IOException {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        assertThat(readme.size()).as("README.md lines").isLessThanOrEqualTo(FRONT_PAGE_LINES);
        Set<String> linked = new TreeSet<>();
        for (String target : links(String.join("\n", readme))) {
            linked.add(target.replaceAll("#.*", ""));
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            List<String> pages = docs.map(p -> "docs/" + p.getFileName()).filter(p -> p.endsWith(".md")).sorted().toList();
            assertThat(pages).isNotEmpty();
            assertThat(linked).as("pages the front page links").containsAll(pages);
        }
    }

    @Test
    void noPageCitesADocumentOutsideTheRepository() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (OUTSIDE.matcher(lines.get(i)).find()) {
                    found.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + lines.get(i));
                }
            }
        }
        assertThat(found).isEmpty();
    }

    @Test
    void headingsAreNamedTheWayGitHubNamesThem() {
        Set<String> anchors = anchorsOf(List.of("# Configuration reference", "## `@RateLimit` members",
                "## Counting across instances (Redis)", "## Who shares a count?", "## Who shares a count?",
                "```", "## not a heading", "```"));
        assertThat(anchors).containsExactlyInAnyOrder("configuration-reference", "ratelimit-members",
                "counting-across-instances-redis", "who-shares-a-count", "who-shares-a-count-1");
    }

    /** The link targets of a page, outside code blocks and code spans. */
    private static List<String> links(String markdown) {
        List<String> targets = new ArrayList<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
            while (m.find()) {
                targets.add(m.group(2));
            }
        }
        return targets;
    }

    private static Set<String> anchorsOf(Path page) {
        try {
            return anchorsOf(Files.readAllLines(page, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + page, e);
        }
    }

    /** The anchors GitHub gives the headings of a page: lower case, punctuation dropped, spaces as '-', repeats numbered. */
    static Set<String> anchorsOf(List<String> lines) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (fenced || !m.matches()) {
                continue;
            }
            String slug = m.group(2).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }
}
