package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.openapi.RateLimitOASFilter;
import dev.ratelimit.quarkus.runtime.DocumentedLimits;
import dev.ratelimit.quarkus.runtime.RateLimitStartupOASFilter;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.AdditionalIndexedClassesBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import io.quarkus.smallrye.openapi.deployment.spi.AddToOpenAPIDefinitionBuildItem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.OASFilter;

/**
 * The limits in the OpenAPI document, where the application has {@code quarkus-smallrye-openapi} and
 * {@code ratelimit-openapi}: ratelimit-openapi's filter applied at build time, when Quarkus builds the document, with
 * the build's configuration; and, unless the application names that filter in {@code mp.openapi.filter} itself
 * (then Quarkus runs it again at start-up), a start-up filter that filters the document again only when the run-time
 * configuration changes what it says ({@link RateLimitStartupOASFilter}).
 */
class OpenApiProcessor {

    private static final String FILTER = "dev.ratelimit.openapi.RateLimitOASFilter";

    @BuildStep
    void startupFilter(Capabilities capabilities, BuildProducer<AdditionalIndexedClassesBuildItem> indexed) {
        if (documented(capabilities) && !namedByTheApplication()) {
            // found by Quarkus' OpenAPI build in the index, by its @OpenApiFilter
            indexed.produce(new AdditionalIndexedClassesBuildItem(RateLimitStartupOASFilter.class.getName()));
        }
    }

    @BuildStep
    void buildTimeFilter(Capabilities capabilities, LimitsBuildItem limits,
                         BuildProducer<AddToOpenAPIDefinitionBuildItem> filters,
                         BuildProducer<GeneratedResourceBuildItem> resources) {
        if (!documented(capabilities)) {
            return;
        }
        filters.produce(new AddToOpenAPIDefinitionBuildItem(Filter.create()));
        // what the build's configuration made of every declared limit, for the start-up filter to compare with
        Map<String, RateLimitPolicy> declared = new LinkedHashMap<>();
        for (LimitDeclaration d : limits.declarations.all()) {
            RateLimitPolicy policy;
            try {
                policy = d.policy();
            } catch (IllegalArgumentException e) {
                continue; // an invalid declaration fails the build elsewhere, naming it
            }
            declared.putIfAbsent(policy.toString(), policy);
        }
        List<RateLimitPolicy> policies = new ArrayList<>(declared.values());
        RateLimitSettings settings = RateLimitSettings.load(RateLimitConfiguration.source(ConfigProvider.getConfig()));
        resources.produce(new GeneratedResourceBuildItem(DocumentedLimits.RESOURCE,
                DocumentedLimits.write(DocumentedLimits.of(settings, policies), policies).getBytes(StandardCharsets.UTF_8)));
    }

    /** Loaded only where ratelimit-openapi is there: nothing else in this class names its classes. */
    private static final class Filter {
        static OASFilter create() {
            return new RateLimitOASFilter();
        }
    }

    /** Quarkus builds an OpenAPI document, and the application has ratelimit-openapi (its filter and its index). */
    private static boolean documented(Capabilities capabilities) {
        return capabilities.isPresent(Capability.SMALLRYE_OPENAPI) && QuarkusClassLoader.isClassPresentAtRuntime(FILTER);
    }

    /** The application's {@code mp.openapi.filter} names ratelimit-openapi's filter: Quarkus runs it at start-up. */
    private static boolean namedByTheApplication() {
        Config config = ConfigProvider.getConfig();
        return config.getOptionalValue("mp.openapi.filter", String.class).map(FILTER::equals).orElse(false);
    }
}
