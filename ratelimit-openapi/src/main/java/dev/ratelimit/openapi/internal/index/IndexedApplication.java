package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.declaration.LimitDeclaration;
import java.util.List;

/**
 * A {@code jakarta.ws.rs.core.Application} subclass as the processor saw it.
 *
 * @param className    its binary name
 * @param path         its {@code @ApplicationPath}, normalized ({@code "/"} when it has none)
 * @param moduleLimits its own {@code @RateLimit}s, in declaration order: the module limits
 */
public record IndexedApplication(String className, String path, List<LimitDeclaration> moduleLimits) {

    public IndexedApplication {
        moduleLimits = List.copyOf(moduleLimits);
    }
}
