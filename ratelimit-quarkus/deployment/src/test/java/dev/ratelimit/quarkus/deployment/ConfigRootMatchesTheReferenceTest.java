package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.quarkus.runtime.RateLimitConfig;
import io.quarkus.runtime.annotations.ConfigDocDefault;
import io.smallrye.config.WithName;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The extension's configuration root ({@link RateLimitConfig}: the Quarkus configuration reference, the Dev UI and IDE
 * completion) offers exactly the keys of the library's reference ({@link KeyCatalogue}, from which
 * {@code docs/configuration.md} is generated), with the same defaults: completion never offers a key the library does
 * not read (a plan's limit takes four properties, not a limit's six), and never lacks one it does.
 */
class ConfigRootMatchesTheReferenceTest {

    @Test
    void theConfigRootOffersTheReferencesKeysWithTheReferencesDefaults() {
        Map<String, String> offered = new TreeMap<>();
        collect("ratelimit", RateLimitConfig.class, offered);
        Map<String, Key> reference = new TreeMap<>();
        for (Key key : KeyCatalogue.keys()) {
            reference.put(key.name().replace("<name>", "*").replace("<plan>", "*"), key);
        }
        assertThat(offered.keySet()).as("the keys RateLimitConfig offers").isEqualTo(reference.keySet());
        for (Map.Entry<String, String> key : offered.entrySet()) {
            Key entry = reference.get(key.getKey());
            if (entry.defaultValue() != null && entry.defaultNote() == null) {
                assertThat(key.getValue()).as("@ConfigDocDefault of %s", key.getKey()).isEqualTo(entry.defaultValue());
            } else if (entry.defaultValue() == null && entry.defaultNote() == null) {
                assertThat(key.getValue()).as("@ConfigDocDefault of %s, which has no default", key.getKey()).isNull();
            }
        }
    }

    /** The property names a mapping interface declares, under {@code prefix}, with their documented default; a map's key is {@code *}. */
    private static void collect(String prefix, Class<?> mapping, Map<String, String> into) {
        for (Method method : mapping.getDeclaredMethods()) {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            WithName name = method.getAnnotation(WithName.class);
            String path = prefix + "." + (name != null ? name.value() : kebab(method.getName()));
            if (method.getReturnType() == Map.class) {
                Class<?> values = (Class<?>) ((ParameterizedType) method.getGenericReturnType()).getActualTypeArguments()[1];
                collect(path + ".*", values, into);
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
