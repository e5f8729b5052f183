package dev.ratelimit.jaxrs.internal;

import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;

/**
 * Lets the library know when Jakarta REST has deployed every resource method, so that configuration keys that name
 * nothing are warned about at start-up (docs/configuration.md, "Mistakes"), not when the first request arrives:
 * {@code RateLimitFeature} binds resource methods one by one and cannot tell which is the last. On Jersey (the
 * embedded server, Payara) a {@link JerseyDeployed} listener is told when the application has started. Elsewhere it
 * does nothing: Quarkus says so itself, and another runtime falls back on the first request.
 */
@Provider
public class DeploymentFeature implements Feature {

    /** Jersey's listener of the application's start, when Jersey serves it. */
    static final String JERSEY_LISTENER = "org.glassfish.jersey.server.spi.ContainerLifecycleListener";

    @Override
    public boolean configure(FeatureContext context) {
        if (!present(JERSEY_LISTENER)) {
            return false;
        }
        context.register(new JerseyDeployed());
        return true;
    }

    private static boolean present(String name) {
        try {
            Class.forName(name, false, DeploymentFeature.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
