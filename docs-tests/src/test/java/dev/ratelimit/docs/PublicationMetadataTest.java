package dev.ratelimit.docs;

import static dev.ratelimit.docs.PublishedPoms.child;
import static dev.ratelimit.docs.PublishedPoms.children;
import static dev.ratelimit.docs.PublishedPoms.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ratelimit.docs.PublishedPoms.Pom;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * What Maven Central and the Quarkus extension registry read is there (CONTRIBUTING.md, "Cutting a release"): every
 * published pom (the BOM, each artifact it manages, their parents) has a name, a description, a url, a licence,
 * developers and scm, itself or through its parent, all naming the same project; every published jar module builds
 * its sources and javadoc jars; nothing else is published; and the extension's {@code quarkus-extension.yaml} has
 * what the registry lists. The built jars themselves: {@link PublishedJarsIT}.
 */
class PublicationMetadataTest {

    private static final Map<String, Pom> ALL = PublishedPoms.all();
    private static final List<Pom> PUBLISHED = PublishedPoms.published(ALL);

    @Test
    void thePublishedArtifactsAreTheLibraryTheBomAndTheirParents() {
        Set<String> ids = new TreeSet<>();
        PUBLISHED.forEach(p -> ids.add(p.artifactId()));
        assertThat(ids).containsExactlyInAnyOrder(
                "ratelimit-bom", "ratelimit-parent", "ratelimit-core", "ratelimit-cdi", "ratelimit-jaxrs",
                "ratelimit-openapi", "ratelimit-redis", "ratelimit-jcache", "ratelimit-micrometer",
                "ratelimit-opentelemetry", "ratelimit-quarkus-parent", "ratelimit-quarkus", "ratelimit-quarkus-deployment");
    }

    @Test
    void everyPublishedPomHasWhatMavenCentralRequires() {
        String projectUrl = text(ALL.get("ratelimit-parent").project(), "url")
                .orElseThrow(() -> new AssertionError("the root pom has no <url>"));
        List<String> missing = new ArrayList<>();
        for (Pom pom : PUBLISHED) {
            String where = PublishedPoms.ROOT.relativize(pom.file()) + " (" + pom.artifactId() + ")";
            // name and description: the pom's own, or every module would show its parent's
            for (String own : List.of("name", "description")) {
                if (text(pom.project(), own).isEmpty()) {
                    missing.add(where + ": no <" + own + ">");
                }
            }
            Optional<String> url = pom.inherited("url").map(e -> e.getTextContent().strip());
            if (url.isEmpty()) {
                missing.add(where + ": no <url>");
            } else if (!url.get().equals(projectUrl)) {
                missing.add(where + ": <url> is " + url.get() + ", not the project's " + projectUrl);
            }
            List<Element> licenses = pom.inherited("licenses").map(l -> children(l, "license")).orElse(List.of());
            if (licenses.isEmpty() || licenses.stream().anyMatch(l -> text(l, "name").isEmpty() || text(l, "url").isEmpty())) {
                missing.add(where + ": no <licenses><license> with a <name> and a <url>");
            }
            List<Element> developers = pom.inherited("developers").map(d -> children(d, "developer")).orElse(List.of());
            if (developers.isEmpty() || developers.stream().anyMatch(d -> text(d, "name").isEmpty())) {
                missing.add(where + ": no <developers><developer> with a <name>");
            }
            Optional<Element> scm = pom.inherited("scm");
            for (String part : List.of("connection", "developerConnection", "url")) {
                Optional<String> value = scm.flatMap(s -> text(s, part));
                if (value.isEmpty()) {
                    missing.add(where + ": no <scm><" + part + ">");
                } else if (!value.get().contains(projectUrl.replaceFirst("^https://", ""))) {
                    missing.add(where + ": <scm><" + part + "> is " + value.get() + ", not the project's " + projectUrl);
                }
            }
            // a module inheriting url or scm gets its artifactId appended unless the pom it inherits from says not to
            if (child(pom.project(), "url").isEmpty() && pom.parent().isPresent()
                    && !"false".equals(definer(pom.parent().get(), "url").project().getAttribute("child.project.url.inherit.append.path"))) {
                missing.add(where + ": inherits <url> with its artifactId appended");
            }
            if (child(pom.project(), "scm").isEmpty() && pom.parent().isPresent()) {
                Element inheritedScm = child(definer(pom.parent().get(), "scm").project(), "scm").orElseThrow();
                for (String part : List.of("connection", "developerConnection", "url")) {
                    if (!"false".equals(inheritedScm.getAttribute("child.scm." + part + ".inherit.append.path"))) {
                        missing.add(where + ": inherits <scm><" + part + "> with its artifactId appended");
                    }
                }
            }
        }
        assertThat(missing).as("what Maven Central requires of each published pom").isEmpty();
    }

    @Test
    void everyPublishedJarModuleBuildsItsSourcesAndJavadocJars() {
        List<String> missing = new ArrayList<>();
        for (Pom pom : PUBLISHED) {
            if (!pom.packaging().equals("jar")) {
                continue;
            }
            String where = PublishedPoms.ROOT.relativize(pom.file()).toString();
            for (String plugin : List.of("maven-source-plugin", "maven-javadoc-plugin")) {
                if (!pom.runs(plugin)) {
                    missing.add(where + ": " + plugin + " does not run in its build");
                }
            }
            if (pom.property("ratelimit.unpublished").orElse("false").equals("true")) {
                missing.add(where + ": ratelimit.unpublished is true, which skips its sources and javadoc jars");
            }
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void nothingElseBuildsSourcesOrJavadocJars() {
        List<String> extra = new ArrayList<>();
        for (Pom pom : ALL.values()) {
            if (PUBLISHED.contains(pom) || !pom.packaging().equals("jar") && !pom.packaging().equals("war")) {
                continue;
            }
            if (pom.runs("maven-javadoc-plugin") && !pom.property("ratelimit.unpublished").orElse("false").equals("true")) {
                extra.add(PublishedPoms.ROOT.relativize(pom.file()) + " builds a javadoc jar, but the BOM does not manage "
                        + pom.artifactId() + ": CI time spent on an artifact nobody downloads");
            }
        }
        assertThat(extra).isEmpty();
    }

    @Test
    void theQuarkusExtensionDescriptorHasWhatTheRegistryLists() throws IOException {
        Path file = ALL.get("ratelimit-quarkus").directory().resolve("src/main/resources/META-INF/quarkus-extension.yaml");
        JsonNode descriptor = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        assertThat(descriptor).as(file + " is empty").isNotNull();
        List<String> missing = new ArrayList<>();
        for (String field : List.of("name", "description")) {
            if (descriptor.path(field).asText("").isBlank()) {
                missing.add(field);
            }
        }
        JsonNode metadata = descriptor.path("metadata");
        for (String list : List.of("keywords", "categories")) {
            if (!metadata.path(list).isArray() || metadata.path(list).isEmpty()) {
                missing.add("metadata." + list + " (a list)");
            }
        }
        if (!metadata.path("guide").asText("").startsWith(
                text(ALL.get("ratelimit-parent").project(), "url").orElseThrow() + "/")) {
            missing.add("metadata.guide (a page of the project's url)");
        }
        if (!Set.of("experimental", "preview", "stable", "deprecated").contains(metadata.path("status").asText(""))) {
            missing.add("metadata.status (experimental, preview, stable or deprecated), is '" + metadata.path("status").asText("") + "'");
        }
        assertThat(missing).as(file + ": what the Quarkus extension registry reads").isEmpty();
    }

    /** The nearest of {@code pom} and its parents that has the element {@code name} of its own. */
    private static Pom definer(Pom pom, String name) {
        return child(pom.project(), name).isPresent() || pom.parent().isEmpty() ? pom : definer(pom.parent().get(), name);
    }
}
