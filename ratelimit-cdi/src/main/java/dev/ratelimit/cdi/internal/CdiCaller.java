package dev.ratelimit.cdi.internal;

import dev.ratelimit.core.RateLimitCaller;
import jakarta.enterprise.inject.Instance;
import java.security.Principal;

/**
 * The caller of a bean method called outside a Jakarta REST request: the CDI {@code Principal} (when the
 * container provides one and it has a name), no headers, no roles.
 */
final class CdiCaller implements RateLimitCaller {

    private final Instance<Principal> principal;

    CdiCaller(Instance<Principal> principal) {
        this.principal = principal;
    }

    @Override
    public Principal principal() {
        if (!principal.isResolvable()) {
            return null;
        }
        try {
            Principal p = principal.get();
            return p == null || p.getName() == null ? null : p;
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String header(String name) {
        return null;
    }

    @Override
    public boolean isUserInRole(String role) {
        return false;
    }
}
