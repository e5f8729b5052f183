package dev.ratelimit.core.config;

import java.util.Optional;

/**
 * Where settings come from: MicroProfile Config in the CDI integration, a map in tests. The engine reads
 * it at deployment only.
 */
public interface SettingsSource {

    /** The value of {@code key}, as the configuration has it (not yet stripped or validated). */
    Optional<String> value(String key);

    /**
     * The keys the configuration can list (for warnings about keys that name nothing, and for limits
     * declared by configuration alone). A source may list fewer keys than it resolves (environment
     * variables are resolved by name but listed in their own spelling).
     */
    Iterable<String> keys();
}
