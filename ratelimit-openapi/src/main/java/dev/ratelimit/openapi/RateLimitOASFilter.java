package dev.ratelimit.openapi;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.openapi.internal.document.AdminDocumentation;
import dev.ratelimit.openapi.internal.check.IndexCheck;
import dev.ratelimit.openapi.internal.document.EffectiveLimit;
import dev.ratelimit.openapi.internal.document.LimitDocumentation;
import dev.ratelimit.openapi.internal.document.OperationMatcher;
import dev.ratelimit.openapi.internal.document.OperationMatcher.Key;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.internal.index.IndexedOperation;
import dev.ratelimit.openapi.internal.index.ResourceIndex;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;

/**
 * Publishes the rate limits in the OpenAPI document (docs/openapi.md). Every operation covered by a method,
 * class or module {@code @RateLimit} gets a {@code 429} response ({@code application/problem+json},
 * with {@code Retry-After} and the {@code RateLimit-*} headers), the {@code RateLimit-*} headers on
 * each of its other responses, and the limits in force in its description and its {@code x-ratelimit}
 * extension. An operation that declares a 429 itself keeps its description and content and gains the
 * headers. Operations without limits, and global limits (configuration), are left out.
 *
 * <p>The limits are documented with their effective values (overrides, modes and plans), read from MicroProfile Config
 * each time the document is filtered, as the application reads them at start-up:
 * {@code ratelimit.limits.<name>.*} changes permitLimit, windowSeconds, algorithm and mode; a limit that
 * is off (for every caller) is not documented; a limit in shadow mode is described as such but brings no
 * 429 and no header, as it refuses nothing and writes none; each limit lists the plans of
 * {@code ratelimit.plans} that change it. With {@code ratelimit.enabled=false} the document is left
 * alone. A malformed {@code ratelimit.*} value fails the filter with the
 * {@link dev.ratelimit.core.InvalidRateLimitException} that fails the application's start-up (naming key
 * and value): a document that showed other limits than the application enforces would mislead its
 * readers, and the application does not start with that configuration anyway.
 *
 * <p>Where the document is built at build time (Quarkus), the configuration is the one the filter runs
 * with: Quarkus 3.32 and later run {@code mp.openapi.filter} when the application starts, with its run-time
 * configuration; earlier versions run it at build time, so that overrides given only at run time reach
 * {@code /q/openapi} with {@code quarkus.smallrye-openapi.always-run-filter=true} (the document is then
 * filtered on each request). A document filtered again says what the last run found (its limits' text
 * replaced, not repeated).
 *
 * <p>Register it in {@code META-INF/microprofile-config.properties}:
 * <pre>mp.openapi.filter=dev.ratelimit.openapi.RateLimitOASFilter</pre>
 * An application with a filter of its own calls {@code new RateLimitOASFilter().filterOpenAPI(openAPI)}
 * at the end of its own {@code filterOpenAPI}.
 *
 * <p>An OASFilter sees the document, not the Java methods; the filter learns the limits of each
 * operation from the index that ratelimit-openapi's annotation processor writes when the application
 * compiles ({@value IndexFormat#LOCATION}), so it works where the document is built at build time
 * (Quarkus) and at run time (Open Liberty, Payara). Without an index it changes nothing and logs a
 * warning saying how to enable the processor.
 */
public class RateLimitOASFilter implements OASFilter {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.openapi");
    /** The declarations as they are: no override, no plan, no mode. */
    private static final RateLimitSettings NO_CONFIGURATION = RateLimitSettings.of(Map.of());

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        RateLimitSettings settings = settings();
        AdminDocumentation.document(openAPI, admin());
        if (!settings.enabled()) {
            LOG.log(Level.DEBUG, "ratelimit-openapi: ratelimit.enabled=false, so the OpenAPI document shows no rate limits");
            return;
        }
        ResourceIndex index = ResourceIndex.load(Thread.currentThread().getContextClassLoader(),
                RateLimitOASFilter.class.getClassLoader());
        for (String problem : index.problems()) {
            LOG.log(Level.WARNING, "ratelimit-openapi: " + problem);
        }
        if (index.isEmpty()) {
            LOG.log(Level.WARNING, "ratelimit-openapi: no " + IndexFormat.LOCATION + " on the class path, so the "
                    + "OpenAPI document shows no rate limits: " + IndexCheck.ENABLE_PROCESSOR);
            return;
        }
        document(openAPI, index, settings);
    }

    /**
     * The {@code ratelimit.*} settings of the application's configuration, validated.
     *
     * @throws dev.ratelimit.core.InvalidRateLimitException naming the key and the value when one is malformed
     */
    private static RateLimitSettings settings() {
        Config config;
        try {
            config = ConfigProvider.getConfig();
        } catch (IllegalStateException | LinkageError e) {
            // no MicroProfile Config implementation here: nothing can override the declarations
            LOG.log(Level.WARNING, "ratelimit-openapi: no MicroProfile Config (" + e + "), so the OpenAPI document "
                    + "shows the limits as declared, without configuration overrides");
            return NO_CONFIGURATION;
        }
        return RateLimitSettings.load(RateLimitConfiguration.withLimitsFile(config));
    }

    /** {@code ratelimit.admin.*}: the admin API is documented where it is served. */
    private static AdminSettings admin() {
        try {
            return AdminSettings.load(RateLimitConfiguration.source(ConfigProvider.getConfig()));
        } catch (IllegalStateException | LinkageError e) {
            return new AdminSettings(false, null, AdminSettings.DEFAULT_PATH);
        }
    }

    /** Documents the limited operations of {@code openAPI} as {@code index} declares them, without configuration. */
    static void document(OpenAPI openAPI, ResourceIndex index) {
        document(openAPI, index, NO_CONFIGURATION);
    }

    /** Documents the limited operations of {@code openAPI} as {@code index} declares them and {@code settings} change them. */
    static void document(OpenAPI openAPI, ResourceIndex index, RateLimitSettings settings) {
        Map<Key, List<Operation>> documented = operations(openAPI);
        Map<Key, List<IndexedOperation>> matched = OperationMatcher.match(documented.keySet(), index.operations());
        LimitDocumentation documentation = new LimitDocumentation(openAPI);
        Set<IndexedOperation> published = new HashSet<>();
        for (Map.Entry<Key, List<IndexedOperation>> match : matched.entrySet()) {
            published.addAll(match.getValue());
            List<EffectiveLimit> limits = EffectiveLimit.of(union(match.getValue()), settings);
            if (limits.isEmpty()) {
                continue; // no limit, or every one off
            }
            for (Operation operation : documented.get(match.getKey())) {
                documentation.document(operation, limits);
            }
        }
        StringJoiner missing = new StringJoiner(", ");
        for (IndexedOperation op : index.operations()) {
            if (op.isLimited() && !published.contains(op)) {
                missing.add(op.describe());
            }
        }
        if (missing.length() > 0) {
            LOG.log(Level.INFO, "ratelimit-openapi: limited resource methods without an operation in the OpenAPI "
                    + "document (hidden, or under a path the document does not show): " + missing);
        }
    }

    private static Map<Key, List<Operation>> operations(OpenAPI openAPI) {
        Map<Key, List<Operation>> operations = new LinkedHashMap<>();
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return operations;
        }
        for (Map.Entry<String, PathItem> path : openAPI.getPaths().getPathItems().entrySet()) {
            Map<PathItem.HttpMethod, Operation> byMethod = path.getValue() == null ? null
                    : path.getValue().getOperations();
            if (byMethod == null) {
                continue;
            }
            for (Map.Entry<PathItem.HttpMethod, Operation> op : byMethod.entrySet()) {
                operations.computeIfAbsent(Key.of(op.getKey().name(), path.getKey()), k -> new ArrayList<>())
                        .add(op.getValue());
            }
        }
        return operations;
    }

    /**
     * The limits of an operation behind which more than one Java method sits (one per media type,
     * say): each limit once, in order.
     */
    private static List<LimitDeclaration> union(List<IndexedOperation> methods) {
        Map<List<Object>, LimitDeclaration> limits = new LinkedHashMap<>();
        for (IndexedOperation method : methods) {
            for (LimitDeclaration limit : method.limits()) {
                limits.putIfAbsent(List.of(limit.policy(), limit.cost(), limit.scope()), limit);
            }
        }
        return new ArrayList<>(limits.values());
    }
}
