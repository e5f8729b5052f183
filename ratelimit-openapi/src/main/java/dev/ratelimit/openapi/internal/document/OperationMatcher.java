package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.openapi.internal.index.IndexedOperation;
import dev.ratelimit.openapi.internal.index.PathTemplates;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the indexed resource methods behind each operation of a document. A generator writes the
 * path as application path + class + locators + method ({@code /todos/{id}}), which is the indexed
 * full path. Some runtimes move or add a prefix (a context root, Quarkus's {@code quarkus.rest.path}
 * in front, or no application path at all); so when not one operation matches exactly, the one
 * prefix that explains the most operations is taken, and only it: an operation of a static file
 * that merely ends like a resource path is not taken for it.
 */
public final class OperationMatcher {

    /** An operation as the document names it: HTTP method and normalized path. */
    public record Key(String httpMethod, String path) {

        public static Key of(String httpMethod, String documentPath) {
            return new Key(httpMethod.toUpperCase(java.util.Locale.ROOT), PathTemplates.normalize(documentPath));
        }
    }

    private OperationMatcher() {
    }

    /** For each documented operation that has any, the indexed methods behind it. */
    public static Map<Key, List<IndexedOperation>> match(Collection<Key> documented, List<IndexedOperation> indexed) {
        Map<Key, List<IndexedOperation>> byFull = new HashMap<>();
        Map<Key, List<IndexedOperation>> byRelative = new HashMap<>();
        for (IndexedOperation op : indexed) {
            byFull.computeIfAbsent(new Key(op.httpMethod(), op.path()), k -> new ArrayList<>()).add(op);
            byRelative.computeIfAbsent(new Key(op.httpMethod(), op.relativePath()), k -> new ArrayList<>()).add(op);
        }
        Map<Key, List<IndexedOperation>> exact = new LinkedHashMap<>();
        for (Key key : documented) {
            List<IndexedOperation> found = byFull.get(key);
            if (found != null) {
                exact.put(key, found);
            }
        }
        if (!exact.isEmpty()) {
            return exact;
        }
        // prefix (+ which path of the index it precedes) -> the operations it explains
        Map<String, Map<Key, List<IndexedOperation>>> groups = new LinkedHashMap<>();
        for (Key key : documented) {
            List<String> segments = PathTemplates.segments(key.path());
            for (int i = 0; i <= segments.size(); i++) {
                String prefix = "/" + String.join("/", segments.subList(0, i));
                String rest = "/" + String.join("/", segments.subList(i, segments.size()));
                Key tail = new Key(key.httpMethod(), rest);
                if (i > 0 && byFull.containsKey(tail)) {
                    groups.computeIfAbsent("full " + prefix, g -> new LinkedHashMap<>()).put(key, byFull.get(tail));
                }
                if (byRelative.containsKey(tail)) {
                    groups.computeIfAbsent("relative " + prefix, g -> new LinkedHashMap<>()).put(key, byRelative.get(tail));
                }
            }
        }
        return groups.values().stream()
                .max(Comparator.comparingInt((Map<Key, List<IndexedOperation>> g) -> g.size()))
                .orElse(Map.of());
    }
}
