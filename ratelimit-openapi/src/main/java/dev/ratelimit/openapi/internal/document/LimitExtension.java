package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The values of a limited operation's {@value LimitDocumentation#EXTENSION} extension, for a program to read: one item
 * per limit, as maps of member name to value.
 *
 * <p>Not API.
 */
final class LimitExtension {

    private LimitExtension() {
    }

    /**
     * The {@value LimitDocumentation#EXTENSION} items, one per limit: its effective values for callers in no plan, what
     * the code declares beyond them, its mode, and the plans that change it.
     */
    static List<Map<String, Object>> items(List<EffectiveLimit> limits) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (EffectiveLimit limit : limits) {
            RateLimitPolicy p = limit.none().policy();
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("name", p.name());
            item.put("permitLimit", p.permitLimit());
            item.put("windowSeconds", p.windowSeconds());
            item.put("algorithm", p.algorithm().name());
            item.put("cost", limit.declared().cost());
            item.put("scope", limit.declared().scope().name());
            item.put("declaredOn", limit.declared().declaredOn().name().toLowerCase(Locale.ROOT));
            item.put("mode", mode(limit.none().mode()));
            item.put("per", limit.counting().per().name());
            if (limit.counting().failuresOnly()) {
                item.put("failuresOnly", Boolean.TRUE);
                item.put("failureStatuses", limit.counting().statuses().toString());
            }
            if (!limit.plans().isEmpty()) {
                Map<String, Object> plans = new LinkedHashMap<>();
                limit.plans().forEach((plan, e) -> plans.put(plan, planItem(e, limit.none())));
                item.put("plans", plans);
            }
            items.add(item);
        }
        return items;
    }

    /** {@code {"permitLimit": 10, "windowSeconds": 60}}, the algorithm and mode where they differ; {@code {"mode": "off"}}. */
    private static Map<String, Object> planItem(Effective e, Effective none) {
        Map<String, Object> item = new LinkedHashMap<>();
        if (e.mode() != RateLimitMode.OFF) {
            item.put("permitLimit", e.policy().permitLimit());
            item.put("windowSeconds", e.policy().windowSeconds());
            if (e.policy().algorithm() != none.policy().algorithm()) {
                item.put("algorithm", e.policy().algorithm().name());
            }
        }
        if (e.mode() == RateLimitMode.OFF || e.mode() != none.mode()) {
            item.put("mode", mode(e.mode()));
        }
        return item;
    }

    private static String mode(RateLimitMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }
}
