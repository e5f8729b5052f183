package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPartitioner;
import java.security.Principal;

/**
 * The default partitioner (SPEC 5): {@code sub:<principal name>} for an authenticated caller, else
 * {@code <header>:<value>} for the configured {@code ratelimit.partition-header}, else {@code anonymous}.
 * Immutable.
 */
public final class HeaderPartitioner implements RateLimitPartitioner {

    /** The partition of every call with neither an authenticated caller nor the header. */
    public static final String ANONYMOUS = "anonymous";

    private final String header;
    private final String prefix;

    /** @param header the partition header, or null for none */
    public HeaderPartitioner(String header) {
        this.header = header;
        this.prefix = header + ":";
    }

    @Override
    public String partition(RateLimitCaller caller) {
        Principal principal = caller.principal();
        if (principal != null && principal.getName() != null) {
            return "sub:".concat(principal.getName());
        }
        if (header != null) {
            String value = caller.header(header);
            if (value != null && !value.isEmpty()) {
                return prefix.concat(value);
            }
        }
        return ANONYMOUS;
    }

    @Override
    public String toString() {
        return "HeaderPartitioner(" + (header == null ? "no header" : header) + ")";
    }
}
