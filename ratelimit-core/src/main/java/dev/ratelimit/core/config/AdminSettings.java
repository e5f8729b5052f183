package dev.ratelimit.core.config;

import dev.ratelimit.core.InvalidRateLimitException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The admin HTTP resource's settings (docs/operating-limits.md, "The admin API"), read and validated at start-up.
 * Immutable.
 *
 * @param enabled {@value #ENABLED}: serve the resource (default false: nothing is served)
 * @param role    {@value #ROLE}: the role a caller needs; required when enabled
 * @param path    {@value #PATH}: where it is served, under the application's base path (default
 *                {@value #DEFAULT_PATH}); starts with {@code /}, no trailing {@code /}
 */
public record AdminSettings(boolean enabled, String role, String path) {

    public static final String ENABLED = "ratelimit.admin.enabled";
    public static final String ROLE = "ratelimit.admin.role";
    public static final String PATH = "ratelimit.admin.path";
    public static final String DEFAULT_PATH = "/ratelimit";
    /**
     * Where the resource class itself is mapped, under the application's base path: requests to {@value #PATH} are
     * rewritten to it before matching, and requests that name it directly find nothing. Jakarta REST has no
     * portable way to map a resource to a path chosen at run time.
     */
    public static final String INTERNAL_PATH = "/ratelimit-admin-d5e3";

    private static final Pattern PATH_PATTERN = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    /** @throws InvalidRateLimitException naming the key and the value when one is malformed, or the role is missing */
    public static AdminSettings load(SettingsSource source) {
        String enabledText = source.value(ENABLED).map(String::strip).orElse("false").toLowerCase(Locale.ROOT);
        if (!enabledText.equals("true") && !enabledText.equals("false")) {
            throw new InvalidRateLimitException("ratelimit: " + ENABLED + " must be true or false, was \""
                    + source.value(ENABLED).orElse("") + "\"");
        }
        boolean enabled = enabledText.equals("true");
        String role = source.value(ROLE).map(String::strip).filter(r -> !r.isEmpty()).orElse(null);
        String path = source.value(PATH).map(String::strip).filter(p -> !p.isEmpty()).orElse(DEFAULT_PATH);
        if (!PATH_PATTERN.matcher(path).matches() || path.equals(INTERNAL_PATH)) {
            throw new InvalidRateLimitException("ratelimit: " + PATH + " must be a path such as /ratelimit (segments "
                    + "of [A-Za-z0-9._~-], no trailing /), was \"" + path + "\"");
        }
        if (enabled && role == null) {
            throw new InvalidRateLimitException("ratelimit: " + ENABLED + "=true needs " + ROLE
                    + " (the role an operator must have): it is not set");
        }
        return new AdminSettings(enabled, role, path);
    }
}
