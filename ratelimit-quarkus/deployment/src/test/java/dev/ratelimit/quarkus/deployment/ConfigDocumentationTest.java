package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.core.config.LimitsFile;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.quarkus.runtime.RateLimitConfig;
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
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every key the library reads is documented as the extension's configuration ({@link RateLimitConfig}): a key added to
 * {@link RateLimitSettings} without its line there would be undocumented on Quarkus, and Quarkus would call it an
 * unrecognized key when set.
 */
class ConfigDocumentationTest {

    @Test
    void everyKeyOfTheLibrarysSettingsIsDocumented() throws IllegalAccessException {
        Set<String> documented = new TreeSet<>();
        collect("ratelimit", RateLimitConfig.class, documented);
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

    private static List<Field> fields(Class<?>... classes) {
        List<Field> all = new ArrayList<>();
        for (Class<?> c : classes) {
            all.addAll(List.of(c.getFields()));
        }
        return all;
    }

    /** The property names a mapping interface declares, under {@code prefix}; a map's key is {@code *}. */
    private static void collect(String prefix, Class<?> mapping, Set<String> into) {
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
                into.add(path);
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
