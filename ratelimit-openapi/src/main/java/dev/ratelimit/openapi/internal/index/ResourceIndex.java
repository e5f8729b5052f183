package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every index resource a class loader sees, merged, with each resource method's limits resolved by the one
 * resolver every runtime uses ({@link LimitResolver}). Immutable.
 *
 * <p>The resource methods of a compilation belong to the {@code Application} subclass compiled with
 * them; a compilation without one (a library of resources) belongs to the only {@code Application}
 * of all the indexes. Where that is ambiguous the methods keep no application path and no module
 * limits, and {@link #problems()} says so.
 */
public final class ResourceIndex {

    private final List<String> sources;
    private final List<String> problems;
    private final List<IndexedOperation> operations;
    private final Map<String, List<IndexedOperation>> byJavaMethod;
    private final List<IndexedApplication> applications;

    private ResourceIndex(List<String> sources, List<String> problems, List<IndexedOperation> operations,
                          List<IndexedApplication> applications) {
        this.sources = List.copyOf(sources);
        this.problems = List.copyOf(problems);
        this.operations = List.copyOf(operations);
        this.applications = List.copyOf(applications);
        Map<String, List<IndexedOperation>> byMethod = new HashMap<>();
        for (IndexedOperation op : operations) {
            byMethod.computeIfAbsent(op.javaMethod(), k -> new ArrayList<>()).add(op);
        }
        byMethod.replaceAll((k, v) -> List.copyOf(v));
        this.byJavaMethod = Collections.unmodifiableMap(byMethod);
    }

    /** Reads {@value IndexFormat#LOCATION} from each loader (null ones skipped); an unreadable one is a problem, not an error. */
    public static ResourceIndex load(ClassLoader... loaders) {
        Set<String> seen = new LinkedHashSet<>();
        List<URL> urls = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (ClassLoader loader : loaders) {
            if (loader == null) {
                continue;
            }
            try {
                Enumeration<URL> found = loader.getResources(IndexFormat.LOCATION);
                while (found.hasMoreElements()) {
                    URL url = found.nextElement();
                    if (seen.add(url.toExternalForm())) {
                        urls.add(url);
                    }
                }
            } catch (IOException e) {
                problems.add("cannot list " + IndexFormat.LOCATION + " resources: " + e);
            }
        }
        List<IndexFile> files = new ArrayList<>();
        for (URL url : urls) {
            try {
                URLConnection connection = url.openConnection();
                connection.setUseCaches(false); // a jar replaced in place (redeploy) must not be read from a stale cache
                try (Reader in = new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8)) {
                    files.add(IndexFormat.read(in, url.toExternalForm()));
                }
            } catch (IOException e) {
                problems.add("cannot read " + url + ": " + e.getMessage());
            }
        }
        return of(files, problems);
    }

    public static ResourceIndex of(List<IndexFile> files) {
        return of(files, List.of());
    }

    private static ResourceIndex of(List<IndexFile> files, List<String> earlierProblems) {
        List<String> problems = new ArrayList<>(earlierProblems);
        List<String> sources = new ArrayList<>();
        Map<String, IndexedApplication> applications = new LinkedHashMap<>();
        for (IndexFile file : files) {
            sources.add(file.source());
            for (IndexedApplication app : file.applications()) {
                applications.putIfAbsent(app.className(), app);
            }
        }
        Map<List<String>, IndexedOperation> operations = new LinkedHashMap<>();
        for (IndexFile file : files) {
            IndexedApplication app = applicationOf(file, applications, problems);
            for (IndexedMethod m : file.methods()) {
                String path = app == null ? m.path() : PathTemplates.join(app.path(), m.path());
                List<String> key = List.of(m.httpMethod(), path, m.javaMethod());
                if (!operations.containsKey(key)) {
                    ResolvedLimits resolved = LimitResolver.resolve(null, MethodDeclarations.resourceMethod(m.where(),
                            app == null ? List.of() : app.moduleLimits(), m.classLimits(), m.methodLimits())
                            .withKeys(m.keys(), true));
                    resolved.problems().forEach(problem -> problems.add(file.source() + ": " + problem));
                    operations.put(key, new IndexedOperation(m.httpMethod(), path, m.path(), m.javaMethod(), resolved));
                }
            }
        }
        return new ResourceIndex(sources, problems, new ArrayList<>(operations.values()),
                new ArrayList<>(applications.values()));
    }

    private static IndexedApplication applicationOf(IndexFile file, Map<String, IndexedApplication> all,
                                                    List<String> problems) {
        if (file.applications().size() == 1) {
            return file.applications().get(0);
        }
        if (file.applications().isEmpty() && all.size() <= 1) {
            return all.isEmpty() ? null : all.values().iterator().next();
        }
        if (!file.methods().isEmpty()) {
            List<String> names = new ArrayList<>();
            for (IndexedApplication app : file.applications().isEmpty() ? all.values() : file.applications()) {
                names.add(app.className());
            }
            problems.add("the resource methods in " + file.source() + " may belong to any of the Application subclasses "
                    + names + ": their application path and module limits are not known");
        }
        return null;
    }

    /** True when no index resource was found (the processor did not run, or found no resource). */
    public boolean isEmpty() {
        return sources.isEmpty();
    }

    /** Where the indexes were read from. */
    public List<String> sources() {
        return sources;
    }

    /** What could not be read or resolved, each a sentence for a log. */
    public List<String> problems() {
        return problems;
    }

    /** Every indexed resource method, one per path it is reached under. */
    public List<IndexedOperation> operations() {
        return operations;
    }

    /** The {@code Application} subclasses the indexes know. */
    public List<IndexedApplication> applications() {
        return applications;
    }

    /** The entries of one resource method (key as {@link IndexFormat#methodKey}); empty when it is not indexed. */
    public List<IndexedOperation> byJavaMethod(String key) {
        return byJavaMethod.getOrDefault(key, List.of());
    }
}
