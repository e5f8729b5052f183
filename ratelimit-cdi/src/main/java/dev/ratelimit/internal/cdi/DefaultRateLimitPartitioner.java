package dev.ratelimit.internal.cdi;

import dev.ratelimit.RateLimitPartitioner;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.security.Principal;

/**
 * {@code sub:<principal name>} for an authenticated caller, else {@code <header>:<value>} for the
 * configured {@code ratelimit.partition-header}, else {@code anonymous}.
 */
@ApplicationScoped
public class DefaultRateLimitPartitioner implements RateLimitPartitioner {

    /** The partition of every request with neither an authenticated caller nor the header. */
    public static final String ANONYMOUS = "anonymous";

    @Inject
    RateLimitConfiguration configuration;

    private String header;
    private String prefix;

    @PostConstruct
    void init() {
        header = configuration.settings().partitionHeader();
        prefix = header + ":";
    }

    @Override
    public String partition(Caller caller) {
        Principal principal = caller.principal();
        if (principal != null && principal.getName() != null) {
            return "sub:" + principal.getName();
        }
        if (header != null) {
            String value = caller.header(header);
            if (value != null && !value.isEmpty()) {
                return prefix.concat(value);
            }
        }
        return ANONYMOUS;
    }
}
