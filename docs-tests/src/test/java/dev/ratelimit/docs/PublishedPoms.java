package dev.ratelimit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The poms of this repository, read with the JDK's XML parser, and which of them are published: the BOM, every
 * artifact it manages, and the parents of those. Used by {@link PublicationMetadataTest} and {@link PublishedJarsIT};
 * not API.
 */
final class PublishedPoms {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final String GROUP = "dev.ratelimit";

    /** One pom: its file, its root element, and its parent pom when that is one of this repository's. */
    record Pom(Path file, Element project, Optional<Pom> parent) {

        String artifactId() {
            return text(project, "artifactId").orElseThrow();
        }

        String version() {
            return text(project, "version").or(() -> parent.map(Pom::version)).orElseThrow();
        }

        String packaging() {
            return text(project, "packaging").orElse("jar");
        }

        Path directory() {
            return file.getParent();
        }

        /** The element {@code name} of this pom, or else of its nearest parent that has one (Maven's inheritance). */
        Optional<Element> inherited(String name) {
            Optional<Element> own = child(project, name);
            return own.isPresent() ? own : parent.flatMap(p -> p.inherited(name));
        }

        /** The property {@code name} as the nearest pom that defines it says it. */
        Optional<String> property(String name) {
            Optional<String> own = child(project, "properties").flatMap(ps -> text(ps, name));
            return own.isPresent() ? own : parent.flatMap(p -> p.property(name));
        }

        /** Whether this pom or one of its parents runs the plugin in every build ({@code build/plugins}). */
        boolean runs(String pluginArtifactId) {
            boolean own = child(project, "build").flatMap(b -> child(b, "plugins")).stream()
                    .flatMap(ps -> children(ps, "plugin").stream())
                    .anyMatch(p -> text(p, "artifactId").orElse("").equals(pluginArtifactId));
            return own || parent.map(p -> p.runs(pluginArtifactId)).orElse(false);
        }
    }

    private PublishedPoms() {
    }

    /** Every pom of the repository (none under target/), by artifactId. */
    static Map<String, Pom> all() {
        Map<Path, Element> read = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.getFileName().toString().equals("pom.xml"))
                    .filter(f -> ROOT.relativize(f).toString().split("/").length < 5)
                    .filter(f -> !ROOT.relativize(f).toString().matches("(.*/)?(target|\\.git)/.*"))
                    .sorted()
                    .forEach(f -> read.put(f, parse(f)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Pom> poms = new LinkedHashMap<>();
        for (Path file : read.keySet()) {
            Pom pom = resolve(file, read, poms);
            poms.put(pom.artifactId(), pom);
        }
        return poms;
    }

    private static Pom resolve(Path file, Map<Path, Element> read, Map<String, Pom> done) {
        Element project = read.get(file);
        String artifactId = text(project, "artifactId").orElseThrow(() -> new IllegalStateException(file + " has no artifactId"));
        if (done.containsKey(artifactId) && done.get(artifactId).file().equals(file)) {
            return done.get(artifactId);
        }
        Optional<Pom> parent = Optional.empty();
        Optional<Element> parentElement = child(project, "parent");
        if (parentElement.isPresent()) {
            String relativePath = text(parentElement.get(), "relativePath").orElse("../pom.xml");
            Path parentFile = file.getParent().resolve(relativePath).normalize();
            if (Files.isDirectory(parentFile)) {
                parentFile = parentFile.resolve("pom.xml");
            }
            if (read.containsKey(parentFile)
                    && text(read.get(parentFile), "artifactId").equals(text(parentElement.get(), "artifactId"))) {
                parent = Optional.of(resolve(parentFile, read, done));
            }
        }
        Pom pom = new Pom(file, project, parent);
        done.put(artifactId, pom);
        return pom;
    }

    /** The BOM, the artifacts it manages and their parents: what a release publishes. */
    static List<Pom> published(Map<String, Pom> all) {
        Pom bom = all.get("ratelimit-bom");
        if (bom == null) {
            throw new IllegalStateException("no ratelimit-bom/pom.xml under " + ROOT);
        }
        List<Pom> published = new ArrayList<>();
        published.add(bom);
        Element managed = child(bom.project(), "dependencyManagement").flatMap(d -> child(d, "dependencies"))
                .orElseThrow(() -> new IllegalStateException("the BOM manages no dependency"));
        for (Element dependency : children(managed, "dependency")) {
            if (!text(dependency, "groupId").orElse("").equals(GROUP)) {
                continue;
            }
            String artifactId = text(dependency, "artifactId").orElseThrow();
            Pom pom = all.get(artifactId);
            if (pom == null) {
                throw new IllegalStateException("the BOM manages " + artifactId + ", which no pom.xml of the repository builds");
            }
            for (Optional<Pom> p = Optional.of(pom); p.isPresent(); p = p.get().parent()) {
                if (!published.contains(p.get())) {
                    published.add(p.get());
                }
            }
        }
        return published;
    }

    static Element parse(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(false);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document document = factory.newDocumentBuilder().parse(file.toFile());
            return document.getDocumentElement();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    static Optional<Element> child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    /** The trimmed text of the child element {@code name}, when there is one and it is not blank. */
    static Optional<String> text(Element parent, String name) {
        return child(parent, name).map(e -> e.getTextContent().strip()).filter(s -> !s.isEmpty());
    }
}
