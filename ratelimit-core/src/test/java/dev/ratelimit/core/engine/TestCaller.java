package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitCaller;
import java.security.Principal;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A caller for engine tests: an optional principal with roles, and request headers.
 *
 * @param name    the principal's name, or null for an anonymous caller
 * @param roles   the roles of the principal
 * @param headers header values, by lower-case name
 */
public record TestCaller(String name, Set<String> roles, Map<String, String> headers) implements RateLimitCaller {

    /** An authenticated caller in the given roles. */
    public static TestCaller user(String name, String... roles) {
        return new TestCaller(name, Set.of(roles), Map.of());
    }

    /** An anonymous caller. */
    public static TestCaller anonymous() {
        return new TestCaller(null, Set.of(), Map.of());
    }

    /** An anonymous caller sending one header. */
    public static TestCaller withHeader(String header, String value) {
        return new TestCaller(null, Set.of(), Map.of(header.toLowerCase(Locale.ROOT), value));
    }

    @Override
    public Principal principal() {
        return name == null ? null : () -> name;
    }

    @Override
    public String header(String header) {
        return headers.get(header.toLowerCase(Locale.ROOT));
    }

    @Override
    public boolean isUserInRole(String role) {
        return name != null && roles.contains(role);
    }
}
