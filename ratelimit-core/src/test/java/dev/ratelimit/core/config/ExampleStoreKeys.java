package dev.ratelimit.core.config;

import dev.ratelimit.core.config.KeyCatalogue.Alias;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyCatalogue.Section;
import java.util.List;

/**
 * The keys of a made-up store module, {@code ratelimit-example-store}, as its {@link KeyProvider} would contribute them:
 * two keys of its own and an older name for each of the core's store timeout and failure policy. Not registered with
 * {@link java.util.ServiceLoader}: tests hand it to {@link KeyCatalogue#of}.
 */
public final class ExampleStoreKeys implements KeyProvider {

    static final String ARTIFACT = "ratelimit-example-store";
    static final String URI = "ratelimit.example.uri";
    static final String THREADS = "ratelimit.example.threads";
    static final String TIMEOUT_MILLIS = "ratelimit.example.timeout-millis";
    static final String ON_FAILURE = "ratelimit.example.on-failure";

    /** The core's keys and this module's. */
    static KeyCatalogue catalogue() {
        return KeyCatalogue.of(List.of(new ExampleStoreKeys()));
    }

    @Override
    public List<Key> keys() {
        return List.of(
                new Key(URI, Section.STORES, "a URI", null, null, false, ARTIFACT, "Where the example store is."),
                new Key(THREADS, Section.STORES, "integer, 1 .. 64", "4", null, false, ARTIFACT,
                        "The threads that wait for it."));
    }

    @Override
    public List<Alias> aliases() {
        return List.of(new Alias(TIMEOUT_MILLIS, RateLimitSettings.STORE_TIMEOUT_MILLIS, ARTIFACT),
                new Alias(ON_FAILURE, RateLimitSettings.STORE_ON_FAILURE, ARTIFACT));
    }
}
