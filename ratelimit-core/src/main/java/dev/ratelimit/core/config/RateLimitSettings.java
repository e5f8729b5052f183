package dev.ratelimit.core.config;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.address.AddressRange;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code ratelimit.*} settings (SPEC 8, 12, 13, 15, 16, 18), read from a {@link SettingsSource} and
 * validated when the application deploys: a malformed value fails the deployment with a message that
 * names the key and the value. Limit names are looked up by name ({@link #limit}), so that every source
 * resolves them, environment variables included. Thread-safe; immutable but for its caches.
 */
public final class RateLimitSettings {

    public static final String ENABLED = "ratelimit.enabled";
    public static final String MODE = "ratelimit.mode";
    public static final String PARTITION_HEADER = "ratelimit.partition-header";
    public static final String MAX_TRACKED_PARTITIONS = "ratelimit.max-tracked-partitions";
    /** Where the default partitioner looks for the caller, in order: principal, header, address (SPEC 18). */
    public static final String PARTITION_BY = "ratelimit.partition-by";
    /** Addresses and CIDR ranges of the proxies whose forwarded headers are believed. */
    public static final String TRUSTED_PROXIES = "ratelimit.trusted-proxies";
    /** The bits of an IPv6 client that count (1-128, default 64). */
    public static final String IPV6_PREFIX = "ratelimit.ipv6-prefix";
    /** The bits of an IPv4 client that count (1-32, default 32). */
    public static final String IPV4_PREFIX = "ratelimit.ipv4-prefix";
    public static final String GLOBAL_PERMIT_LIMIT = "ratelimit.global.permit-limit";
    public static final String GLOBAL_WINDOW_SECONDS = "ratelimit.global.window-seconds";
    public static final String GLOBAL_NAME = "ratelimit.global.name";
    public static final String GLOBAL_SCOPE = "ratelimit.global.scope";
    public static final String GLOBAL_ALGORITHM = "ratelimit.global.algorithm";
    /** {@code ratelimit.limits.<name>.<property>}. */
    public static final String LIMITS = "ratelimit.limits.";
    /** The plan names, comma-separated, in order of precedence; {@code ratelimit.plans.<plan>.*} below it. */
    public static final String PLANS = "ratelimit.plans";
    public static final String STORE_TIMEOUT_MILLIS = "ratelimit.store.timeout-millis";
    public static final String STORE_ON_FAILURE = "ratelimit.store.on-failure";
    /** How long, at most, an instance answers a refusal of a shared store itself (0: never). */
    public static final String STORE_REFUSAL_MEMORY_MILLIS = "ratelimit.store.refusal-memory-millis";
    /** How long after a store was unreachable the failure policy answers without calling it. */
    public static final String STORE_RETRY_MILLIS = "ratelimit.store.retry-millis";
    /** The older spelling of {@link #STORE_TIMEOUT_MILLIS}, still read when that key is unset. */
    public static final String REDIS_TIMEOUT_MILLIS = "ratelimit.redis.timeout-millis";
    /** The older spelling of {@link #STORE_ON_FAILURE}, still read when that key is unset. */
    public static final String REDIS_ON_FAILURE = "ratelimit.redis.on-failure";
    /** {@code true}: the engine takes its time from a {@code ManualClock} that tests move (never in production). */
    public static final String TEST_MANUAL_CLOCK = "ratelimit.test.manual-clock";

    public static final String PERMIT_LIMIT = "permit-limit";
    public static final String WINDOW_SECONDS = "window-seconds";
    public static final String ALGORITHM = "algorithm";
    public static final String MODE_PROPERTY = "mode";
    public static final String MAX_WAIT_MILLIS = "max-wait-millis";
    public static final String PER = "per";
    /** What a plan may change of a limit. */
    private static final List<String> PLAN_LIMIT_PROPERTIES = List.of(PERMIT_LIMIT, WINDOW_SECONDS, ALGORITHM, MODE_PROPERTY);
    /** What {@code ratelimit.limits.<name>.*} may change: a plan's, and whose count and how long a call waits. */
    private static final List<String> LIMIT_PROPERTIES = List.of(PERMIT_LIMIT, WINDOW_SECONDS, ALGORITHM, MODE_PROPERTY,
            MAX_WAIT_MILLIS, PER);

    /** Default of {@code ratelimit.store.timeout-millis}. */
    public static final int DEFAULT_TIMEOUT_MILLIS = 250;
    /** Default of {@code ratelimit.store.refusal-memory-millis}. */
    public static final int DEFAULT_REFUSAL_MEMORY_MILLIS = 5000;
    /** Default of {@code ratelimit.store.retry-millis}. */
    public static final int DEFAULT_RETRY_MILLIS = 1000;
    /** The most either of them may be: an hour. */
    private static final int MAX_STORE_MILLIS = 3_600_000;
    private static final int MAX_TIMEOUT_MILLIS = 60_000;
    private static final String HEADER_NAME = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
    /** Keys of other modules, known so that they are not reported as unknown. */
    private static final Set<String> OTHER_KNOWN_KEYS = Set.of(REDIS_TIMEOUT_MILLIS, REDIS_ON_FAILURE,
            "ratelimit.redis.uri", "ratelimit.redis.cluster", "ratelimit.redis.key-prefix",
            // live values and the admin API (SPEC 19): LimitsFile, AdminSettings
            "ratelimit.limits-file", "ratelimit.refresh-seconds", "ratelimit.admin.enabled", "ratelimit.admin.role",
            "ratelimit.admin.path");

    private final SettingsSource source;
    private final boolean enabled;
    private final RateLimitMode mode;
    private final String partitionHeader;
    private final List<PartitionSource> partitionBy;
    private final ClientAddresses clientAddresses;
    private final int maxTrackedPartitions;
    private final RateLimitPolicy global;
    private final RateLimitScope globalScope;
    private final List<Plan> plans;
    private final int timeoutMillis;
    private final OnFailure onFailure;
    private final int refusalMemoryMillis;
    private final int retryMillis;
    private final boolean manualClock;
    private final Map<String, LimitValues> limits = new ConcurrentHashMap<>();
    private final Map<String, LimitValues> planLimits = new ConcurrentHashMap<>();

    private RateLimitSettings(SettingsSource source) {
        this.source = source;
        this.enabled = bool(ENABLED, true);
        this.mode = mode(MODE, RateLimitMode.ENFORCE);
        String header = text(PARTITION_HEADER);
        if (header != null && !header.matches(HEADER_NAME)) {
            throw invalid(PARTITION_HEADER, header, "an HTTP header name");
        }
        this.partitionHeader = header;
        this.partitionBy = readPartitionBy(header);
        this.clientAddresses = ClientAddresses.of(readTrustedProxies(), integer(IPV4_PREFIX, ClientAddresses.DEFAULT_IPV4_PREFIX, 1, 32),
                integer(IPV6_PREFIX, ClientAddresses.DEFAULT_IPV6_PREFIX, 1, 128));
        this.maxTrackedPartitions = integer(MAX_TRACKED_PARTITIONS, InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS,
                1, Integer.MAX_VALUE);
        // every global key is validated, also while no global limit is set: a typo must not wait to bite
        int window = integer(GLOBAL_WINDOW_SECONDS, 60, 1, RateLimitPolicy.MAX_WINDOW_SECONDS);
        String name = Optional.ofNullable(text(GLOBAL_NAME)).orElse("application");
        if (!RateLimitPolicy.NAME.matcher(name).matches()) {
            throw invalid(GLOBAL_NAME, name, "1-64 characters from [A-Za-z0-9._-]");
        }
        String scope = Optional.ofNullable(text(GLOBAL_SCOPE)).orElse("TRANSPORT").toUpperCase(Locale.ROOT);
        if (!scope.equals("TRANSPORT") && !scope.equals("PRINCIPAL")) {
            throw invalid(GLOBAL_SCOPE, text(GLOBAL_SCOPE), "TRANSPORT or PRINCIPAL");
        }
        this.globalScope = RateLimitScope.valueOf(scope);
        RateLimitAlgorithm algorithm = algorithm(GLOBAL_ALGORITHM, RateLimitAlgorithm.SLIDING_WINDOW);
        if (text(GLOBAL_PERMIT_LIMIT) != null) {
            int permitLimit = integer(GLOBAL_PERMIT_LIMIT, 0, 1, Integer.MAX_VALUE);
            this.global = new RateLimitPolicy(name, permitLimit, window, algorithm);
        } else {
            this.global = null;
        }
        this.plans = readPlans();
        String timeoutKey = text(STORE_TIMEOUT_MILLIS) != null || text(REDIS_TIMEOUT_MILLIS) == null
                ? STORE_TIMEOUT_MILLIS : REDIS_TIMEOUT_MILLIS;
        this.timeoutMillis = integer(timeoutKey, DEFAULT_TIMEOUT_MILLIS, 1, MAX_TIMEOUT_MILLIS);
        String onFailureKey = text(STORE_ON_FAILURE) != null || text(REDIS_ON_FAILURE) == null
                ? STORE_ON_FAILURE : REDIS_ON_FAILURE;
        this.onFailure = onFailure(onFailureKey);
        this.refusalMemoryMillis = integer(STORE_REFUSAL_MEMORY_MILLIS, DEFAULT_REFUSAL_MEMORY_MILLIS, 0, MAX_STORE_MILLIS);
        this.retryMillis = integer(STORE_RETRY_MILLIS, DEFAULT_RETRY_MILLIS, 0, MAX_STORE_MILLIS);
        this.manualClock = bool(TEST_MANUAL_CLOCK, false);
        // the listed keys are validated now, the rest when a limit that uses them deploys
        for (String key : source.keys()) {
            if (key.startsWith(LIMITS)) {
                String limit = limitName(key.substring(LIMITS.length()), LIMIT_PROPERTIES);
                if (limit != null) {
                    limit(limit);
                }
            }
        }
        for (Plan plan : plans) {
            String prefix = PLANS + "." + plan.name() + ".limits.";
            for (String key : source.keys()) {
                if (key.startsWith(prefix)) {
                    String limit = limitName(key.substring(prefix.length()), PLAN_LIMIT_PROPERTIES);
                    if (limit != null) {
                        plan(plan, limit);
                    }
                }
            }
        }
    }

    /** Reads and validates the settings. @throws InvalidRateLimitException naming the key and the value */
    public static RateLimitSettings load(SettingsSource source) {
        return new RateLimitSettings(source);
    }

    /** Settings from a map (tests, and applications without MicroProfile Config). */
    public static RateLimitSettings of(Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return load(new SettingsSource() {
            @Override
            public Optional<String> value(String key) {
                return Optional.ofNullable(copy.get(key));
            }

            @Override
            public Iterable<String> keys() {
                return copy.keySet();
            }
        });
    }

    /** {@value #ENABLED}: false switches the library off: nothing is decided, counted or written. */
    public boolean enabled() {
        return enabled;
    }

    /** {@value #MODE}: the mode of every limit that sets none. */
    public RateLimitMode mode() {
        return mode;
    }

    /** {@value #PARTITION_HEADER}, or null. */
    public String partitionHeader() {
        return partitionHeader;
    }

    /** {@value #PARTITION_BY}: where the default partitioner looks for the caller, in order. */
    public List<PartitionSource> partitionBy() {
        return partitionBy;
    }

    /** {@value #TRUSTED_PROXIES}, {@value #IPV4_PREFIX} and {@value #IPV6_PREFIX}: how a request's client is found. */
    public ClientAddresses clientAddresses() {
        return clientAddresses;
    }

    /** {@value #MAX_TRACKED_PARTITIONS}. */
    public int maxTrackedPartitions() {
        return maxTrackedPartitions;
    }

    /** The global limit as declared by {@code ratelimit.global.*} (before {@code ratelimit.limits.*}), or null. */
    public RateLimitPolicy global() {
        return global;
    }

    /** {@value #GLOBAL_SCOPE}. */
    public RateLimitScope globalScope() {
        return globalScope;
    }

    /** The plans, in order of precedence (index 1, 2, ...). */
    public List<Plan> plans() {
        return plans;
    }

    /** {@value #STORE_TIMEOUT_MILLIS} (or {@value #REDIS_TIMEOUT_MILLIS}). */
    public int timeoutMillis() {
        return timeoutMillis;
    }

    /** {@value #STORE_ON_FAILURE} (or {@value #REDIS_ON_FAILURE}). */
    public OnFailure onFailure() {
        return onFailure;
    }

    /**
     * {@value #STORE_REFUSAL_MEMORY_MILLIS}: how long, at most, this instance answers a refusal of a store that several
     * instances share itself, until the refusal's retry-after, instead of asking the store again; 0 .. 3600000
     * milliseconds, default {@value #DEFAULT_REFUSAL_MEMORY_MILLIS}; 0: the store is asked every time.
     */
    public int refusalMemoryMillis() {
        return refusalMemoryMillis;
    }

    /**
     * {@value #STORE_RETRY_MILLIS}: once the store could not be reached, how long calls get the failure policy at once,
     * without calling the store, before one call tries it again; 0 .. 3600000 milliseconds, default
     * {@value #DEFAULT_RETRY_MILLIS}; 0: every call tries the store.
     */
    public int retryMillis() {
        return retryMillis;
    }

    /** {@value #TEST_MANUAL_CLOCK}. */
    public boolean manualClock() {
        return manualClock;
    }

    /**
     * What {@code ratelimit.limits.<name>.*} says of a limit name, validated.
     *
     * @throws InvalidRateLimitException naming the key and the value when one is malformed
     */
    public LimitValues limit(String name) {
        return limits.computeIfAbsent(name, n -> values(LIMITS + n + ".", true));
    }

    /** What {@code ratelimit.plans.<plan>.limits.<name>.*} says, validated. */
    public LimitValues plan(Plan plan, String name) {
        return planLimits.computeIfAbsent(plan.name() + '/' + name,
                k -> values(PLANS + "." + plan.name() + ".limits." + name + ".", false));
    }

    /**
     * The policy and mode of a declared limit for the callers of a plan: the declaration, then
     * {@code ratelimit.limits.<name>.*}, then the plan's {@code ratelimit.plans.<plan>.limits.<name>.*}; the
     * mode falls back to {@value #MODE}.
     *
     * @param plan null for callers in no plan
     * @throws InvalidRateLimitException when a value is malformed
     */
    public Effective effective(RateLimitPolicy declared, Plan plan) {
        LimitValues values = limit(declared.name());
        RateLimitPolicy policy = apply(declared, values);
        RateLimitMode limitMode = values.mode() != null ? values.mode() : mode;
        if (plan != null) {
            LimitValues planValues = plan(plan, declared.name());
            policy = apply(policy, planValues);
            if (planValues.mode() != null) {
                limitMode = planValues.mode();
            }
        }
        return new Effective(policy, limitMode);
    }

    /** A limit's policy and mode after configuration. */
    public record Effective(RateLimitPolicy policy, RateLimitMode mode) {
    }

    /**
     * The limit names that configuration alone declares (both {@code permit-limit} and
     * {@code window-seconds} under {@code ratelimit.limits.<name>}), for the programmatic API.
     */
    public Set<String> configuredLimits() {
        Set<String> names = new TreeSet<>();
        for (String key : source.keys()) {
            if (key.startsWith(LIMITS)) {
                String name = limitName(key.substring(LIMITS.length()), LIMIT_PROPERTIES);
                if (name != null && limit(name).declaresALimit()) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * The policy of a limit that configuration alone declares, or null.
     *
     * @throws InvalidRateLimitException when a value is malformed
     */
    public RateLimitPolicy configuredLimit(String name) {
        LimitValues values = limit(name);
        if (!values.declaresALimit()) {
            return null;
        }
        return new RateLimitPolicy(name, values.permitLimit(), values.windowSeconds(),
                values.algorithm() == null ? RateLimitAlgorithm.SLIDING_WINDOW : values.algorithm());
    }

    /**
     * Warnings for listed {@code ratelimit.*} keys that name nothing: a limit no declaration uses (unless
     * configuration declares it whole for the programmatic API), a plan outside {@value #PLANS}, a property
     * that does not exist. One message per key, naming it.
     *
     * @param declared every limit name the application declares (annotations and the global limit)
     */
    public List<String> unknownKeys(Set<String> declared) {
        Set<String> known = new LinkedHashSet<>(declared);
        known.addAll(configuredLimits());
        List<String> warnings = new ArrayList<>();
        Set<String> fixed = Set.of(ENABLED, MODE, PARTITION_HEADER, PARTITION_BY, TRUSTED_PROXIES, IPV4_PREFIX, IPV6_PREFIX,
                MAX_TRACKED_PARTITIONS, GLOBAL_PERMIT_LIMIT,
                GLOBAL_WINDOW_SECONDS, GLOBAL_NAME, GLOBAL_SCOPE, GLOBAL_ALGORITHM, PLANS,
                STORE_TIMEOUT_MILLIS, STORE_ON_FAILURE, STORE_REFUSAL_MEMORY_MILLIS, STORE_RETRY_MILLIS, TEST_MANUAL_CLOCK);
        for (String key : new TreeSet<>(keyList())) {
            if (!key.startsWith("ratelimit.") || fixed.contains(key) || OTHER_KNOWN_KEYS.contains(key)) {
                continue;
            }
            if (key.startsWith(LIMITS)) {
                String name = limitName(key.substring(LIMITS.length()), LIMIT_PROPERTIES);
                if (name == null) {
                    warnings.add(key + " is not a setting: a limit takes " + String.join(", ", LIMIT_PROPERTIES));
                } else if (!known.contains(name)) {
                    warnings.add(key + " names the limit \"" + name + "\", which no @RateLimit, global limit or "
                            + "configuration declares (check the name; to declare it for the programmatic API, set both "
                            + LIMITS + name + "." + PERMIT_LIMIT + " and ." + WINDOW_SECONDS + ")");
                }
            } else if (key.startsWith(PLANS + ".")) {
                String warning = planKeyWarning(key, known);
                if (warning != null) {
                    warnings.add(warning);
                }
            } else {
                warnings.add(key + " is not a ratelimit setting");
            }
        }
        return warnings;
    }

    private String planKeyWarning(String key, Set<String> known) {
        Plan longest = null;
        for (Plan plan : plans) {
            if (key.startsWith(PLANS + "." + plan.name() + ".")
                    && (longest == null || plan.name().length() > longest.name().length())) {
                longest = plan; // "gold.v2" before "gold": plan names may contain dots
            }
        }
        if (longest == null) {
            return key + " names a plan that " + PLANS + " does not list (" + plans.stream().map(Plan::name).toList() + ")";
        }
        String rest = key.substring((PLANS + "." + longest.name() + ".").length());
        if (rest.equals("role")) {
            return null;
        }
        if (rest.startsWith("limits.")) {
            String name = limitName(rest.substring("limits.".length()), PLAN_LIMIT_PROPERTIES);
            if (name == null) {
                return key + " is not a setting: a plan's limit takes " + String.join(", ", PLAN_LIMIT_PROPERTIES);
            }
            return known.contains(name) ? null : key + " names the limit \"" + name
                    + "\", which no @RateLimit, global limit or configuration declares";
        }
        return key + " is not a setting of the plan \"" + longest.name() + "\" (role, limits.<name>.*)";
    }

    private List<String> keyList() {
        List<String> keys = new ArrayList<>();
        for (String key : source.keys()) {
            keys.add(key);
        }
        return keys;
    }

    /** The name in {@code <name>.<property>}, or null when the property is not one of a limit's. */
    private static String limitName(String nameAndProperty, List<String> properties) {
        for (String property : properties) {
            if (nameAndProperty.endsWith("." + property) && nameAndProperty.length() > property.length() + 1) {
                return nameAndProperty.substring(0, nameAndProperty.length() - property.length() - 1);
            }
        }
        return null;
    }

    private static RateLimitPolicy apply(RateLimitPolicy policy, LimitValues values) {
        if (!values.changesSize()) {
            return policy;
        }
        return policy.with(values.permitLimit() != null ? values.permitLimit() : policy.permitLimit(),
                values.windowSeconds() != null ? values.windowSeconds() : policy.windowSeconds(),
                values.algorithm() != null ? values.algorithm() : policy.algorithm());
    }

    private LimitValues values(String prefix, boolean wholeLimit) {
        Integer permitLimit = text(prefix + PERMIT_LIMIT) == null ? null
                : integer(prefix + PERMIT_LIMIT, 0, 1, Integer.MAX_VALUE);
        Integer window = text(prefix + WINDOW_SECONDS) == null ? null
                : integer(prefix + WINDOW_SECONDS, 0, 1, RateLimitPolicy.MAX_WINDOW_SECONDS);
        RateLimitAlgorithm algorithm = algorithm(prefix + ALGORITHM, null);
        RateLimitMode limitMode = mode(prefix + MODE_PROPERTY, null);
        Long maxWait = !wholeLimit || text(prefix + MAX_WAIT_MILLIS) == null ? null
                : (long) integer(prefix + MAX_WAIT_MILLIS, 0, 0, Integer.MAX_VALUE);
        RateLimitPer per = wholeLimit ? per(prefix + PER) : null;
        LimitValues values = new LimitValues(permitLimit, window, algorithm, limitMode, maxWait, per);
        return values.isEmpty() ? LimitValues.NONE : values;
    }

    private List<PartitionSource> readPartitionBy(String header) {
        String text = text(PARTITION_BY);
        if (text == null) {
            return List.of(PartitionSource.PRINCIPAL, PartitionSource.HEADER);
        }
        List<PartitionSource> order = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String key = part.strip();
            PartitionSource source = PartitionSource.of(key);
            if (source == null) {
                throw invalid(PARTITION_BY, text, "principal, header and/or address, comma-separated, in the order they are "
                        + "tried (\"" + key + "\" is not one of them)");
            }
            if (order.contains(source)) {
                throw invalid(PARTITION_BY, text, "principal, header and/or address, each at most once (\"" + key
                        + "\" appears twice)");
            }
            order.add(source);
        }
        if (order.contains(PartitionSource.HEADER) && header == null) {
            throw new InvalidRateLimitException("ratelimit configuration: " + PARTITION_BY + " has \"header\", which needs "
                    + PARTITION_HEADER + " (unset), was \"" + text + "\"");
        }
        return List.copyOf(order);
    }

    private List<AddressRange> readTrustedProxies() {
        String text = text(TRUSTED_PROXIES);
        if (text == null) {
            return List.of();
        }
        List<AddressRange> ranges = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            try {
                ranges.add(AddressRange.parse(part));
            } catch (IllegalArgumentException e) {
                throw invalid(TRUSTED_PROXIES, text, "addresses and CIDR ranges, comma-separated (" + e.getMessage() + ")");
            }
        }
        return List.copyOf(ranges);
    }

    private List<Plan> readPlans() {
        String text = text(PLANS);
        if (text == null) {
            return List.of();
        }
        Map<String, Plan> plans = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            String name = part.strip();
            if (!RateLimitPolicy.NAME.matcher(name).matches()) {
                throw invalid(PLANS, text, "plan names, comma-separated, each 1-64 characters from [A-Za-z0-9._-] (\""
                        + name + "\" is not)");
            }
            if (plans.containsKey(name)) {
                throw invalid(PLANS, text, "distinct plan names (\"" + name + "\" appears twice)");
            }
            String roleKey = PLANS + "." + name + ".role";
            String role = Optional.ofNullable(text(roleKey)).orElse(name);
            plans.put(name, new Plan(name, plans.size() + 1, role));
        }
        return Collections.unmodifiableList(new ArrayList<>(plans.values()));
    }

    private String text(String key) {
        return source.value(key).map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    private int integer(String key, int fallback, int min, int max) {
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

    private boolean bool(String key, boolean fallback) {
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

    private RateLimitMode mode(String key, RateLimitMode fallback) {
        String value = text(key);
        if (value == null) {
            return fallback;
        }
        try {
            return RateLimitMode.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid(key, value, "enforce, shadow or off");
        }
    }

    private RateLimitAlgorithm algorithm(String key, RateLimitAlgorithm fallback) {
        String value = text(key);
        if (value == null) {
            return fallback;
        }
        try {
            return RateLimitAlgorithm.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw invalid(key, value, "SLIDING_WINDOW, STRICT_WINDOW or TOKEN_BUCKET");
        }
    }

    private RateLimitPer per(String key) {
        String value = text(key);
        if (value == null) {
            return null;
        }
        try {
            return RateLimitPer.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid(key, value, "caller or application");
        }
    }

    private OnFailure onFailure(String key) {
        String value = text(key);
        if (value == null) {
            return OnFailure.FAIL;
        }
        try {
            return OnFailure.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid(key, value, "fail, allow or local");
        }
    }

    private static InvalidRateLimitException invalid(String key, String value, String expected) {
        return new InvalidRateLimitException("ratelimit configuration: " + key + " must be " + expected
                + ", was \"" + value + "\"");
    }

    @Override
    public String toString() {
        return "RateLimitSettings[enabled=" + enabled + ", mode=" + mode + ", partition-header=" + partitionHeader
                + ", partition-by=" + partitionBy + ", " + clientAddresses.describe()
                + ", max-tracked-partitions=" + maxTrackedPartitions + ", global=" + global + ", plans=" + plans
                + ", timeout-millis=" + timeoutMillis + ", on-failure=" + onFailure + "]";
    }
}
