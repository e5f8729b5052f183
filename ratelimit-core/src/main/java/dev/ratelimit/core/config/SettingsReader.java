package dev.ratelimit.core.config;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.address.AddressRange;
import dev.ratelimit.core.address.PartitionSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Parsing: reads one {@code ratelimit.*} key at a time from a {@link SettingsSource} as the type it holds, with its
 * default when unset or blank; a malformed value fails with {@link InvalidRateLimitException} naming the key and
 * the value. Values are stripped; a blank value counts as unset.
 *
 * <p>It remembers every key it was asked for ({@link #wasRead}): a key the settings read is a setting, so a new key
 * needs no list of its own to be told from a typo ({@link UnknownKeys}). A key that a module keeps an older name for
 * ({@link KeyCatalogue#aliasesOf}) is read under that name when it is unset itself, and a malformed value is named as it
 * was written. Thread-safe.
 */
final class SettingsReader {

    private final SettingsSource source;
    private final KeyCatalogue catalogue;
    private final Set<String> read = ConcurrentHashMap.newKeySet();

    SettingsReader(SettingsSource source, KeyCatalogue catalogue) {
        this.source = source;
        this.catalogue = catalogue;
    }

    /** The catalogue whose keys and older names this reader knows. */
    KeyCatalogue catalogue() {
        return catalogue;
    }

    /** The keys the source lists. */
    Iterable<String> keys() {
        return source.keys();
    }

    /** True when some setting read {@code key} (set or not). */
    boolean wasRead(String key) {
        return read.contains(key);
    }

    /** Every key some setting read so far (set or not). */
    Set<String> readKeys() {
        return Set.copyOf(read);
    }

    /** The stripped value of {@code key} (or of its older name, when only that is set), or null when unset or blank. */
    String text(String key) {
        return value(spelling(key));
    }

    /**
     * The name whose value stands for {@code key}: {@code key} itself when it is set or has no older name that is, else
     * the first of its older names that is set.
     */
    String spelling(String key) {
        List<String> older = catalogue.aliasesOf(key);
        if (older.isEmpty() || value(key) != null) {
            return key;
        }
        for (String name : older) {
            if (value(name) != null) {
                return name;
            }
        }
        return key;
    }

    private String value(String key) {
        read.add(key);
        return source.value(key).map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    /** {@code key} as an integer from {@code min} to {@code max}, or {@code fallback} when unset. */
    int integer(String key, int fallback, int min, int max) {
        key = spelling(key);
        String value = text(key);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key, value, max == Integer.MAX_VALUE ? "an integer >= " + min : "an integer from " + min + " to " + max);
    }

    /** {@code key} as a decimal number above 0 and at most {@code max}, or {@code fallback} when unset. */
    double share(String key, double fallback, double max) {
        key = spelling(key);
        String value = text(key);
        if (value == null) {
            return fallback;
        }
        try {
            double parsed = Double.parseDouble(value);
            if (parsed > 0 && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key, value, "a decimal number above 0 and at most " + max);
    }

    /** {@code key} as {@code true} or {@code false} (any case), or {@code fallback} when unset. */
    boolean bool(String key, boolean fallback) {
        key = spelling(key);
        String value = text(key);
        if (value == null) {
            return fallback;
        }
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw invalid(key, value, "true or false");
    }

    RateLimitMode mode(String key, RateLimitMode fallback) {
        return choice(key, RateLimitMode.class, fallback, "enforce, shadow or off");
    }

    RateLimitAlgorithm algorithm(String key, RateLimitAlgorithm fallback) {
        return choice(key, RateLimitAlgorithm.class, fallback, "SLIDING_WINDOW, STRICT_WINDOW or TOKEN_BUCKET");
    }

    /** Whose count, or null when unset. */
    RateLimitPer per(String key) {
        return choice(key, RateLimitPer.class, null, "caller, application, address or argument");
    }

    /** HTTP statuses, codes and ranges ({@link FailureStatuses}), or null when unset. */
    FailureStatuses failureStatuses(String key) {
        key = spelling(key);
        String value = text(key);
        if (value == null) {
            return null;
        }
        try {
            return FailureStatuses.parse(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidRateLimitException("ratelimit configuration: " + key + " " + e.getMessage());
        }
    }

    /** The failure policy, {@link OnFailure#FAIL} when unset. */
    OnFailure onFailure(String key) {
        return choice(key, OnFailure.class, OnFailure.FAIL, "fail, allow or local");
    }

    /**
     * {@code key} as one of the constants of {@code type}, written in any case, with {@code -} or {@code _} between
     * words ({@code token-bucket}); {@code fallback} when unset.
     *
     * @param expected the values, as the message of a malformed one names them
     */
    <E extends Enum<E>> E choice(String key, Class<E> type, E fallback, String expected) {
        key = spelling(key);
        String value = text(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw invalid(key, value, expected);
        }
    }

    /** {@code key} as the order of the default partitioner (principal, header, address); {@code principal, header} when unset. */
    List<PartitionSource> partitionBy(String key, String headerKey, String header) {
        key = spelling(key);
        String text = text(key);
        if (text == null) {
            return List.of(PartitionSource.PRINCIPAL, PartitionSource.HEADER);
        }
        List<PartitionSource> order = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String name = part.strip();
            PartitionSource source = PartitionSource.of(name);
            if (source == null) {
                throw invalid(key, text, "principal, header and/or address, comma-separated, in the order they are "
                        + "tried (\"" + name + "\" is not one of them)");
            }
            if (order.contains(source)) {
                throw invalid(key, text, "principal, header and/or address, each at most once (\"" + name
                        + "\" appears twice)");
            }
            order.add(source);
        }
        if (order.contains(PartitionSource.HEADER) && header == null) {
            throw new InvalidRateLimitException("ratelimit configuration: " + key + " has \"header\", which needs "
                    + headerKey + " (unset), was \"" + text + "\"");
        }
        return List.copyOf(order);
    }

    /** {@code key} as addresses and CIDR ranges, comma-separated; none when unset. */
    List<AddressRange> addressRanges(String key) {
        key = spelling(key);
        String text = text(key);
        if (text == null) {
            return List.of();
        }
        List<AddressRange> ranges = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            try {
                ranges.add(AddressRange.parse(part));
            } catch (IllegalArgumentException e) {
                throw invalid(key, text, "addresses and CIDR ranges, comma-separated (" + e.getMessage() + ")");
            }
        }
        return List.copyOf(ranges);
    }

    /** {@code key} as plan names, comma-separated, in order, each with its {@code <key>.<plan>.role}; none when unset. */
    List<Plan> plans(String key) {
        key = spelling(key);
        String text = text(key);
        if (text == null) {
            return List.of();
        }
        Map<String, Plan> plans = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            String name = part.strip();
            if (!RateLimitPolicy.NAME.matcher(name).matches()) {
                throw invalid(key, text, "plan names, comma-separated, each 1-64 characters from [A-Za-z0-9._-] (\""
                        + name + "\" is not)");
            }
            if (plans.containsKey(name)) {
                throw invalid(key, text, "distinct plan names (\"" + name + "\" appears twice)");
            }
            String role = Optional.ofNullable(text(key + "." + name + ".role")).orElse(name);
            plans.put(name, new Plan(name, plans.size() + 1, role));
        }
        return Collections.unmodifiableList(new ArrayList<>(plans.values()));
    }

    /** The failure to read {@code key}: {@code "<key> must be <expected>, was \"<value>\""}. */
    static InvalidRateLimitException invalid(String key, String value, String expected) {
        return new InvalidRateLimitException("ratelimit configuration: " + key + " must be " + expected
                + ", was \"" + value + "\"");
    }
}
