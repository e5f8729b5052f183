package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.RateLimitRuntime;
import jakarta.enterprise.inject.spi.CDI;
import org.glassfish.jersey.server.spi.Container;
import org.glassfish.jersey.server.spi.ContainerLifecycleListener;

/**
 * Jersey has started the application: every resource method is bound ({@link RateLimitRuntime#deploymentComplete}).
 * Registered by {@link DeploymentFeature} only where Jersey is on the class path; loaded nowhere else.
 */
final class JerseyDeployed implements ContainerLifecycleListener {

    @Override
    public void onStartup(Container container) {
        CDI.current().select(RateLimitRuntime.class).get().deploymentComplete();
    }

    @Override
    public void onReload(Container container) {
        onStartup(container);
    }

    @Override
    public void onShutdown(Container container) {
        // nothing to say
    }
}
