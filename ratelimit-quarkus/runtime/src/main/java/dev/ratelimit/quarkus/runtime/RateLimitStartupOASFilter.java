package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.openapi.RateLimitOASFilter;
import io.quarkus.smallrye.openapi.OpenApiFilter;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;

/**
 * Run-time overrides in the OpenAPI document (docs/openapi.md, "Changes while running"). The extension applies
 * ratelimit-openapi's filter at build time, with the build's configuration; when the application starts, this compares
 * what the document says with what the run-time configuration makes of the same limits ({@link DocumentedLimits}) and,
 * only when they differ (an override given at run time: a system property, an environment variable), filters the
 * document again, which then says what the run-time configuration says. Registered by the build only where
 * ratelimit-openapi's filter is not already {@code mp.openapi.filter} (Quarkus runs that one at start-up itself).
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.RUNTIME_STARTUP)
public class RateLimitStartupOASFilter implements OASFilter {

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        DocumentedLimits.Written atBuild = DocumentedLimits.read(RateLimitStartupOASFilter.class.getClassLoader());
        if (atBuild != null) {
            RateLimitSettings now = RateLimitSettings.load(RateLimitConfiguration.source(ConfigProvider.getConfig()));
            if (DocumentedLimits.of(now, atBuild.declared()).equals(atBuild.line())) {
                return; // the document says it already
            }
        }
        new RateLimitOASFilter().filterOpenAPI(openAPI);
    }
}
