package dev.ratelimit.jcache.cdi;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.jcache.JCacheRateLimitStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import org.eclipse.microprofile.config.Config;

/**
 * The {@code ratelimit.jcache.*} settings, read from MicroProfile Config and validated once, at start-up; the reference
 * lists them through {@link JCacheConfigKeys}. The timeout and the failure policy are the engine's
 * ({@code ratelimit.store.timeout-millis}, {@code ratelimit.store.on-failure}).
 *
 * @param cache         {@value #CACHE}: the name of the cache that keeps the counts; null when unset (then the
 *                      in-process store counts)
 * @param provider      {@value #PROVIDER}: the class name of the JCache {@code CachingProvider}; null: the cache
 *                      manager the runtime offers (a CDI bean, as on Payara), else the only provider on the class path
 * @param uri           {@value #URI}: the provider's configuration URI (e.g. a Hazelcast XML file); null: its default
 * @param mode          {@value #MODE}: {@code auto} (default), {@code processor} or {@code cas}
 * @param expirySeconds {@value #EXPIRY_SECONDS}: when the store creates the cache, how long after its last write a
 *                      count is kept, 1 .. 31622400 (a year and a day); default {@value #DEFAULT_EXPIRY_SECONDS} (an
 *                      hour and one step of it): at least the longest window and one eighth of it
 * @param threads       {@value #THREADS}: how many threads wait for the grid, 1 .. 1024; default
 *                      {@value JCacheRateLimitStore#DEFAULT_THREADS}
 */
public record JCacheSettings(String cache, String provider, URI uri, JCacheRateLimitStore.Mode mode, long expirySeconds,
                             int threads) {

    public static final String CACHE = "ratelimit.jcache.cache";
    public static final String PROVIDER = "ratelimit.jcache.provider";
    public static final String URI = "ratelimit.jcache.uri";
    public static final String MODE = "ratelimit.jcache.mode";
    public static final String EXPIRY_SECONDS = "ratelimit.jcache.expiry-seconds";
    public static final String THREADS = "ratelimit.jcache.threads";

    public static final long DEFAULT_EXPIRY_SECONDS = 4050;
    private static final long MAX_EXPIRY_SECONDS = 31_622_400;
    private static final int MAX_THREADS = 1024;

    /** Reads and validates every key. @throws InvalidRateLimitException naming the key and the value */
    public static JCacheSettings load(Config config) {
        String cache = text(config, CACHE);
        String provider = text(config, PROVIDER);
        if (provider != null && !provider.matches("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*")) {
            throw invalid(PROVIDER, provider, "the class name of a javax.cache.spi.CachingProvider");
        }
        String uriText = text(config, URI);
        URI uri = null;
        if (uriText != null) {
            try {
                uri = new URI(uriText);
            } catch (URISyntaxException e) {
                throw invalid(URI, uriText, "a URI, such as classpath:hazelcast.xml or file:///etc/hazelcast.xml ("
                        + e.getMessage() + ")");
            }
        }
        String modeText = text(config, MODE);
        JCacheRateLimitStore.Mode mode = JCacheRateLimitStore.Mode.AUTO;
        if (modeText != null) {
            mode = switch (modeText.toLowerCase(Locale.ROOT)) {
                case "auto" -> JCacheRateLimitStore.Mode.AUTO;
                case "processor" -> JCacheRateLimitStore.Mode.PROCESSOR;
                case "cas" -> JCacheRateLimitStore.Mode.COMPARE_AND_SET;
                default -> throw invalid(MODE, modeText, "auto, processor or cas");
            };
        }
        long expiry = number(config, EXPIRY_SECONDS, DEFAULT_EXPIRY_SECONDS, 1, MAX_EXPIRY_SECONDS);
        int threads = (int) number(config, THREADS, JCacheRateLimitStore.DEFAULT_THREADS, 1, MAX_THREADS);
        return new JCacheSettings(cache, provider, uri, mode, expiry, threads);
    }

    private static long number(Config config, String key, long fallback, long min, long max) {
        String text = text(config, key);
        if (text == null) {
            return fallback;
        }
        try {
            long value = Long.parseLong(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw invalid(key, text, "a whole number from " + min + " to " + max);
    }

    private static String text(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    private static InvalidRateLimitException invalid(String key, String value, String expected) {
        return new InvalidRateLimitException("ratelimit configuration: " + key + " must be " + expected
                + ", was \"" + value + "\"");
    }
}
