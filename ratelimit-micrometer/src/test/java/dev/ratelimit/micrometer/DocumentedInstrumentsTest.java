package dev.ratelimit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.metrics.RateLimitMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md names every instrument the code exports, and only those: every method of {@link RateLimitMetrics}
 * is called (with each outcome), and the names of the meters it registered are compared with the first column of the
 * page's table of instruments. A method added to the interface is called here without a change (its parameters are
 * filled by type), so a new instrument fails this test until the page names it.
 */
class DocumentedInstrumentsTest {

    private static final Path PAGE = Path.of("..", "docs", "metrics.md");
    /** A row of the instruments table: its first cell, one or more {@code `name`} joined by {@code /}. */
    private static final Pattern ROW = Pattern.compile("^\\| (`ratelimit\\.[^|]+) \\|");
    private static final Pattern NAME = Pattern.compile("`(ratelimit\\.[a-z0-9_.]+)`");

    @Test
    void thePageNamesEveryInstrumentTheCodeExportsAndNoOther() throws Exception {
        assertThat(documented()).as("the instruments of %s", PAGE).isEqualTo(exported());
    }

    @Test
    void everyNameTheInterfaceDeclaresIsExported() throws Exception {
        Set<String> declared = new TreeSet<>();
        for (var field : RateLimitMetrics.class.getFields()) {
            if (field.getType() == String.class && Modifier.isStatic(field.getModifiers())) {
                String value = (String) field.get(null);
                if (value.startsWith("ratelimit.") && !isAttribute(field.getName())) {
                    declared.add(value);
                }
            }
        }
        assertThat(exported()).containsAll(declared);
    }

    private static boolean isAttribute(String field) {
        return Set.of("POLICY", "OUTCOME", "PLAN", "STORE", "DECIDED").contains(field);
    }

    /** Every meter a registry holds once each method of the interface was called. */
    static Set<String> exported() throws IllegalAccessException, InvocationTargetException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MicrometerRateLimitMetrics metrics = new MicrometerRateLimitMetrics(registry);
        for (Method method : RateLimitMetrics.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.getName().equals("isEnabled")) {
                continue;
            }
            for (Object[] arguments : arguments(method)) {
                method.invoke(metrics, arguments);
            }
        }
        return registry.getMeters().stream().map(Meter::getId).map(Meter.Id::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** One call per value of an enum parameter (at most one such), the other parameters filled by type. */
    private static List<Object[]> arguments(Method method) {
        Class<?>[] types = method.getParameterTypes();
        List<Object[]> calls = new ArrayList<>();
        Object[] values = {null};
        for (Class<?> type : types) {
            if (type.isEnum()) {
                values = type.getEnumConstants();
            }
        }
        for (Object value : values) {
            Object[] arguments = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                arguments[i] = argument(method, types[i], value);
            }
            calls.add(arguments);
        }
        return calls;
    }

    private static Object argument(Method method, Class<?> type, Object enumValue) {
        if (type == String.class) {
            return "x";
        } else if (type.isEnum()) {
            return enumValue;
        } else if (type == long.class) {
            return 1L;
        } else if (type == int.class) {
            return 1;
        } else if (type == boolean.class) {
            return true;
        } else if (type == LongSupplier.class) {
            return (LongSupplier) () -> 1;
        } else if (type == BooleanSupplier.class) {
            return (BooleanSupplier) () -> true;
        }
        throw new AssertionError("RateLimitMetrics." + method.getName() + " takes a " + type.getName()
                + ", which this test cannot fill yet: add it to argument()");
    }

    /** The names in the first column of the page's table of instruments. */
    static Set<String> documented() throws IOException {
        Set<String> names = new TreeSet<>();
        for (String line : Files.readAllLines(PAGE, StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                Matcher name = NAME.matcher(row.group(1));
                while (name.find()) {
                    names.add(name.group(1));
                }
            }
        }
        assertThat(names).as("instrument rows in %s", PAGE).isNotEmpty();
        return names;
    }
}
