package dev.ratelimit.quarkus.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.LimitsFile;
import dev.ratelimit.core.config.RateLimitSettings;
import io.quarkus.runtime.annotations.ConfigDocDefault;
import io.smallrye.config.WithName;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every key the library reads is documented as the extension's configuration ({@link RateLimitConfig}): a key added to
 * {@link RateLimitSettings} without its line there would be undocumented on Quarkus, and Quarkus would call it an
 * unrecognized key when set. And it offers exactly the keys that the library's reference ({@link KeyCatalogue}, from
 * which {@code docs/configuration.md} is generated) gives to the artifacts that run on Quarkus, with the same defaults:
 * completion never offers a key the library does not read there (a plan's limit takes four properties, not a limit's
 * six; the JCache store's keys, a store for the runtimes that bring a data grid, are not Quarkus'). The Redis store's
 * keys come from its own provider: {@code ratelimit-redis} is on this module's class path (the extension's Redis
 * client runs it), so the installed catalogue has them.
 */
class ConfigDocumentationTest {

    /** The artifacts whose keys the root offers: the library, and the Redis store (the extension's Redis client). */
    private static final Set<String> ON_QUARKUS = Set.of("ratelimit-core", "ratelimit-redis");
    /** The artifacts whose keys it does not offer: {@code ratelimit-jcache} (Payara, Open Liberty, embedded servers). */
    private static final Set<String> NOT_ON_QUARKUS = Set.of("ratelimit-jcache");

    @Test
    void everyKeyOfTheLibrarysSettingsIsDocumented() throws IllegalAccessException {
        Set<String> documented = collect().keySet();
        List<String> keys = new ArrayList<>();
        for (Field field : fields(RateLimitSettings.class, AdminSettings.class, LimitsFile.class)) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                String key = (String) field.get(null);
                if (key.startsWith("ratelimit.") && !key.endsWith(".")) {
                    keys.add(key);
                }
            }
        }
        assertThat(keys).as("the library's keys").isNotEmpty();
        assertThat(documented).as("what RateLimitConfig documents").containsAll(keys)
                .contains("ratelimit.limits.*.permit-limit", "ratelimit.limits.*.window-seconds",
                        "ratelimit.limits.*.algorithm", "ratelimit.limits.*.mode", "ratelimit.plans.*.role",
                        "ratelimit.plans.*.limits.*.permit-limit", "ratelimit.redis.uri", "ratelimit.redis.cluster",
                        "ratelimit.redis.key-prefix");
    }

    @Test
    void theConfigRootOffersTheReferencesKeysWithTheReferencesDefaults() {
        Map<String, String> offered = collect();
        Map<String, Key> reference = new TreeMap<>();
        KeyCatalogue catalogue = KeyCatalogue.installed();
        assertThat(catalogue.namesReadBy("ratelimit-redis")).as("the Redis store's keys, from its provider")
                .contains("ratelimit.redis.uri", "ratelimit.redis.timeout-millis");
        for (Key key : catalogue.keys()) {
            assertThat(key.artifact()).as("%s: does the root offer the keys of %s? Say so in ON_QUARKUS or "
                    + "NOT_ON_QUARKUS", key.name(), key.artifact()).isIn(union(ON_QUARKUS, NOT_ON_QUARKUS));
            if (ON_QUARKUS.contains(key.artifact())) {
                reference.put(key.name().replace("<name>", "*").replace("<plan>", "*"), key);
            }
        }
        assertThat(offered.keySet()).as("the keys RateLimitConfig offers").isEqualTo(reference.keySet());
        for (Map.Entry<String, String> key : offered.entrySet()) {
            Key entry = reference.get(key.getKey());
            if (entry.defaultNote() == null) { // a default given in words is not compared
                assertThat(key.getValue()).as("@ConfigDocDefault of %s", key.getKey()).isEqualTo(entry.defaultValue());
            }
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    /** Every property RateLimitConfig declares, with its documented default (or null). */
    private static Map<String, String> collect() {
        Map<String, String> documented = new TreeMap<>();
        collect("ratelimit", RateLimitConfig.class, documented);
        return documented;
    }

    private static List<Field> fields(Class<?>... classes) {
        List<Field> all = new ArrayList<>();
        for (Class<?> c : classes) {
            all.addAll(List.of(c.getFields()));
        }
        return all;
    }

    /** The property names a mapping interface declares, under {@code prefix}, with their documented default; a map's key is {@code *}. */
    private static void collect(String prefix, Class<?> mapping, Map<String, String> into) {
        for (Method method : mapping.getDeclaredMethods()) {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            WithName name = method.getAnnotation(WithName.class);
            String path = prefix + "." + (name != null ? name.value() : kebab(method.getName()));
            Type type = method.getGenericReturnType();
            if (method.getReturnType() == Map.class) {
                Type values = ((ParameterizedType) type).getActualTypeArguments()[1];
                collect(path + ".*", (Class<?>) values, into);
            } else if (method.getReturnType().isInterface() && method.getReturnType().getName().startsWith("dev.ratelimit.")) {
                collect(path, method.getReturnType(), into);
            } else {
                ConfigDocDefault documented = method.getAnnotation(ConfigDocDefault.class);
                into.put(path, documented == null ? null : documented.value());
            }
        }
    }

    private static String kebab(String name) {
        StringBuilder s = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (Character.isUpperCase(c)) {
                s.append('-').append(Character.toLowerCase(c));
            } else {
                s.append(c);
            }
        }
        return s.toString();
    }
}
