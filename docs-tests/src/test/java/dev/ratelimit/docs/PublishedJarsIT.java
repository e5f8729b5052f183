package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.docs.PublishedPoms.Pom;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The jars a release publishes, as this build made them (phase integration-test, after every module of the reactor
 * was packaged; docs-tests is the reactor's last module): for each published jar module, the jar, its sources jar and
 * its javadoc jar, each holding what its name says. {@code -DskipITs} skips it.
 */
class PublishedJarsIT {

    @Test
    void everyPublishedJarModuleHasItsJarSourcesAndJavadoc() throws IOException {
        List<String> missing = new ArrayList<>();
        int modules = 0;
        for (Pom pom : PublishedPoms.published(PublishedPoms.all())) {
            if (!pom.packaging().equals("jar")) {
                continue;
            }
            modules++;
            String base = pom.artifactId() + "-" + pom.version();
            Path target = pom.directory().resolve("target");
            check(target.resolve(base + ".jar"), ".class", missing);
            check(target.resolve(base + "-sources.jar"), ".java", missing);
            check(target.resolve(base + "-javadoc.jar"), "index.html", missing);
        }
        assertThat(modules).as("published jar modules").isGreaterThanOrEqualTo(10);
        assertThat(missing).as("the jars of the published modules (built by mvn package of the whole reactor)").isEmpty();
    }

    private static void check(Path jar, String entrySuffix, List<String> missing) throws IOException {
        Path relative = PublishedPoms.ROOT.relativize(jar);
        if (!Files.isRegularFile(jar)) {
            missing.add(relative + " is missing");
            return;
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.stream().noneMatch(e -> e.getName().endsWith(entrySuffix))) {
                missing.add(relative + " has no *" + entrySuffix);
            }
        }
    }
}
