package dev.ratelimit.quarkus.deployment.devui;

import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.quarkus.runtime.ResourceMethodLimits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of the Dev UI's table of limits: one per limit that covers a resource method, in the order of the methods'
 * ids, then in the resolver's order of each method's limits ({@link LimitResolver}, without the run-time global
 * limit). Each row is a map of column name to value: {@code method}, {@code kind}, {@code name}, {@code permitLimit},
 * {@code windowSeconds} (seconds), {@code algorithm}, {@code cost} (permits), {@code scope} and {@code declaredOn}.
 *
 * <p>Not API.
 */
final class LimitRows {

    private LimitRows() {
    }

    static List<Map<String, Object>> of(List<ResourceMethodLimits> methods) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ResourceMethodLimits method : methods) {
            for (LimitDeclaration limit : LimitResolver.resolve(null, method.declarations()).limits()) {
                rows.add(row(method.declarations().where(), "resource method", limit));
            }
        }
        return rows;
    }

    private static Map<String, Object> row(String where, String kind, LimitDeclaration limit) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("method", where);
        row.put("kind", kind);
        row.put("name", limit.name());
        row.put("permitLimit", limit.permitLimit());
        row.put("windowSeconds", limit.windowSeconds());
        row.put("algorithm", limit.algorithm().name());
        row.put("cost", limit.cost());
        row.put("scope", limit.scope().name());
        row.put("declaredOn", limit.declaredOn().name().toLowerCase(Locale.ROOT));
        return row;
    }
}
