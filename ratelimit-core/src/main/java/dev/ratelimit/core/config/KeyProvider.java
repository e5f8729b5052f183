package dev.ratelimit.core.config;

import dev.ratelimit.core.config.KeyCatalogue.Alias;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import java.util.List;

/**
 * How a module contributes the {@code ratelimit.*} keys it reads to the {@link KeyCatalogue}: the generated
 * configuration reference, the unknown-key warnings and the Quarkus configuration root then know them, and the core
 * knows no module's keys itself. A store module implements it in a public class with a public no-argument constructor
 * and names that class in {@code META-INF/services/dev.ratelimit.core.config.KeyProvider}; the catalogue finds it with
 * {@link java.util.ServiceLoader} once, when the application deploys, never on a request.
 *
 * <p>A provider is plain data: it must load without the module's other dependencies (a client library may be absent
 * from the class path, as Lettuce is on Quarkus), so it names keys as strings and nothing more.
 */
public interface KeyProvider {

    /**
     * The keys the module reads, in the order the reference page lists them within their section; each names the
     * module's artifact ({@link Key#artifact()}). A key is listed by one artifact only.
     */
    List<Key> keys();

    /**
     * Older names the module keeps working, each standing for a key of the core's settings: read when that key is
     * unset, listed on the reference page and never warned about. None by default.
     */
    default List<Alias> aliases() {
        return List.of();
    }
}
