package dev.ratelimit.benchmarks.quarkus.bucket4jextension;

import io.quarkiverse.bucket4j.runtime.resolver.IdentityResolver;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;

/** One bucket per {@code X-Api-Key}, as ratelimit partitions by it (quarkus-bucket4j's own resolvers: IP, constant). */
@RequestScoped
public class ApiKeyResolver implements IdentityResolver {

    @Inject
    RoutingContext context;

    @Override
    public String getIdentityKey() {
        String key = context.request().getHeader("X-Api-Key");
        return key == null ? "anonymous" : key;
    }
}
