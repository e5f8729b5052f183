package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.cdi.RateLimitRuntime;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Every limit is bound once the application has started (the resource methods' at run-time init, the CDI beans'
 * as CDI starts): configuration keys that name nothing are warned about now, once.
 */
@Singleton
public class RateLimitStarted {

    void started(@Observes StartupEvent event, RateLimitRuntime runtime) {
        runtime.deploymentComplete();
    }
}
