package dev.ratelimit.core.config;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code ratelimit.*} settings (limits, modes, plans, algorithms, partitions, stores), read from a
 * {@link SettingsSource} and validated when the application deploys: a malformed value fails the deployment with
 * a message that names the key and the value. Limit names are looked up by name ({@link #limit}), so that every
 * source resolves them, environment variables included. Thread-safe; immutable but for its caches.
 *
 * <p>This class is the value; by job, the parsing of one key is {@link SettingsReader}'s (a new key is one field
 * read with it in the constructor, and one accessor), the values by limit name and plan are
 * {@link LimitOverrides}', and the warnings about keys that name nothing are {@link UnknownKeys}'.
 */
public final class RateLimitSettings {

    public static final String ENABLED = "ratelimit.enabled";
    public static final String MODE = "ratelimit.mode";
    public static final String PARTITION_HEADER = "ratelimit.partition-header";
    public static final String MAX_TRACKED_PARTITIONS = "ratelimit.max-tracked-partitions";
    /** Where the default partitioner looks for the caller, in order: principal, header, address. */
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
    /** {@code true}: every limit of a shared store is decided in slices (docs/stores.md, "Exact or sliced"). */
    public static final String STORE_SLICES = "ratelimit.store.slices";
    /** How long, at most, an instance decides from a slice before the unused part goes back, milliseconds. */
    public static final String STORE_SLICE_LEASE_MILLIS = "ratelimit.store.slice-lease-millis";
    /** The largest slice, as a share of the limit. */
    public static final String STORE_SLICE_MAX_SHARE = "ratelimit.store.slice-max-share";
    /** How long after a store was unreachable the failure policy answers without calling it. */
    public static final String STORE_RETRY_MILLIS = "ratelimit.store.retry-millis";
    /**
     * The secret that keys the digests of {@code per = ARGUMENT} limits' values (an account, a phone number): at least
     * {@value #MIN_KEY_SECRET_LENGTH} characters; required with a shared store, else a random one per start.
     */
    public static final String KEY_SECRET = "ratelimit.key-secret";
    /** The shortest {@value #KEY_SECRET}, in characters. */
    public static final int MIN_KEY_SECRET_LENGTH = 16;
    /** {@code true}: the engine takes its time from a {@code ManualClock} that tests move (never in production). */
    public static final String TEST_MANUAL_CLOCK = "ratelimit.test.manual-clock";

    public static final String PERMIT_LIMIT = "permit-limit";
    public static final String WINDOW_SECONDS = "window-seconds";
    public static final String ALGORITHM = "algorithm";
    public static final String MODE_PROPERTY = "mode";
    public static final String MAX_WAIT_MILLIS = "max-wait-millis";
    public static final String PER = "per";
    public static final String FAILURES_ONLY = "failures-only";
    public static final String FAILURE_STATUSES = "failure-statuses";
    /** {@code ratelimit.limits.<name>.slices}: the limit is decided in slices on a shared store. */
    public static final String SLICES = "slices";

    /** Default of {@code ratelimit.store.timeout-millis}. */
    public static final int DEFAULT_TIMEOUT_MILLIS = 250;
    /** Default of {@code ratelimit.store.refusal-memory-millis}. */
    public static final int DEFAULT_REFUSAL_MEMORY_MILLIS = 5000;
    /** Default of {@code ratelimit.store.slice-lease-millis}. */
    public static final int DEFAULT_SLICE_LEASE_MILLIS = 1000;
    /** Default of {@code ratelimit.store.slice-max-share}. */
    public static final double DEFAULT_SLICE_MAX_SHARE = 0.1;
    /** Default of {@code ratelimit.store.retry-millis}. */
    public static final int DEFAULT_RETRY_MILLIS = 1000;
    /** The most either of them may be: an hour. */
    private static final int MAX_STORE_MILLIS = 3_600_000;
    private static final int MAX_TIMEOUT_MILLIS = 60_000;
    /** The longest lease of a slice: a minute. */
    private static final int MAX_SLICE_LEASE_MILLIS = 60_000;
    private static final String HEADER_NAME = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";

    private final SettingsReader read;
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
    private final boolean slices;
    private final int sliceLeaseMillis;
    private final double sliceMaxShare;
    private final boolean manualClock;
    private final String keySecret;
    private final LimitOverrides overrides;

    private RateLimitSettings(SettingsSource source, KeyCatalogue catalogue) {
        SettingsReader read = new SettingsReader(source, catalogue);
        this.read = read;
        this.enabled = read.bool(ENABLED, true);
        this.mode = read.mode(MODE, RateLimitMode.ENFORCE);
        String header = read.text(PARTITION_HEADER);
        if (header != null && !header.matches(HEADER_NAME)) {
            throw SettingsReader.invalid(PARTITION_HEADER, header, "an HTTP header name");
        }
        this.partitionHeader = header;
        this.partitionBy = read.partitionBy(PARTITION_BY, PARTITION_HEADER, header);
        this.clientAddresses = ClientAddresses.of(read.addressRanges(TRUSTED_PROXIES),
                read.integer(IPV4_PREFIX, ClientAddresses.DEFAULT_IPV4_PREFIX, 1, 32),
                read.integer(IPV6_PREFIX, ClientAddresses.DEFAULT_IPV6_PREFIX, 1, 128));
        this.maxTrackedPartitions = read.integer(MAX_TRACKED_PARTITIONS,
                InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS, 1, Integer.MAX_VALUE);
        // every global key is validated, also while no global limit is set: a typo must not wait to bite
        int window = read.integer(GLOBAL_WINDOW_SECONDS, 60, 1, RateLimitPolicy.MAX_WINDOW_SECONDS);
        String name = Optional.ofNullable(read.text(GLOBAL_NAME)).orElse("application");
        if (!RateLimitPolicy.NAME.matcher(name).matches()) {
            throw SettingsReader.invalid(GLOBAL_NAME, name, "1-64 characters from [A-Za-z0-9._-]");
        }
        String scope = Optional.ofNullable(read.text(GLOBAL_SCOPE)).orElse("TRANSPORT").toUpperCase(Locale.ROOT);
        if (!scope.equals("TRANSPORT") && !scope.equals("PRINCIPAL")) {
            throw SettingsReader.invalid(GLOBAL_SCOPE, read.text(GLOBAL_SCOPE), "TRANSPORT or PRINCIPAL");
        }
        this.globalScope = RateLimitScope.valueOf(scope);
        RateLimitAlgorithm algorithm = read.algorithm(GLOBAL_ALGORITHM, RateLimitAlgorithm.SLIDING_WINDOW);
        if (read.text(GLOBAL_PERMIT_LIMIT) != null) {
            int permitLimit = read.integer(GLOBAL_PERMIT_LIMIT, 0, 1, Integer.MAX_VALUE);
            this.global = new RateLimitPolicy(name, permitLimit, window, algorithm);
        } else {
            this.global = null;
        }
        this.plans = read.plans(PLANS);
        // a module's older name for a key (KeyCatalogue.Alias) is read when the key is unset: the reader knows them
        this.timeoutMillis = read.integer(STORE_TIMEOUT_MILLIS, DEFAULT_TIMEOUT_MILLIS, 1, MAX_TIMEOUT_MILLIS);
        this.onFailure = read.onFailure(STORE_ON_FAILURE);
        this.refusalMemoryMillis = read.integer(STORE_REFUSAL_MEMORY_MILLIS, DEFAULT_REFUSAL_MEMORY_MILLIS, 0,
                MAX_STORE_MILLIS);
        this.retryMillis = read.integer(STORE_RETRY_MILLIS, DEFAULT_RETRY_MILLIS, 0, MAX_STORE_MILLIS);
        this.slices = read.bool(STORE_SLICES, false);
        this.sliceLeaseMillis = read.integer(STORE_SLICE_LEASE_MILLIS, DEFAULT_SLICE_LEASE_MILLIS, 1, MAX_SLICE_LEASE_MILLIS);
        this.sliceMaxShare = read.share(STORE_SLICE_MAX_SHARE, DEFAULT_SLICE_MAX_SHARE, 1);
        this.manualClock = read.bool(TEST_MANUAL_CLOCK, false);
        String secret = read.text(KEY_SECRET);
        if (secret != null && secret.length() < MIN_KEY_SECRET_LENGTH) {
            // never the value itself: it is a secret
            throw new InvalidRateLimitException("ratelimit configuration: " + KEY_SECRET + " must be at least "
                    + MIN_KEY_SECRET_LENGTH + " characters, was " + secret.length());
        }
        this.keySecret = secret;
        this.overrides = new LimitOverrides(read, mode);
        overrides.validateListed(plans);
    }

    /**
     * Reads and validates the settings, with the keys and older names of the modules on the class path
     * ({@link KeyCatalogue#installed()}). @throws InvalidRateLimitException naming the key and the value
     */
    public static RateLimitSettings load(SettingsSource source) {
        return load(source, KeyCatalogue.installed());
    }

    /** Reads and validates the settings with the keys of {@code catalogue} (tests). */
    static RateLimitSettings load(SettingsSource source, KeyCatalogue catalogue) {
        return new RateLimitSettings(source, catalogue);
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

    /** {@value #STORE_TIMEOUT_MILLIS} (or an older name a module keeps for it, see {@link KeyCatalogue.Alias}). */
    public int timeoutMillis() {
        return timeoutMillis;
    }

    /** {@value #STORE_ON_FAILURE} (or an older name a module keeps for it, see {@link KeyCatalogue.Alias}). */
    public OnFailure onFailure() {
        return onFailure;
    }

    /**
     * Whether the limit {@code name} is decided in slices on a shared store: {@value #STORE_SLICES}, or
     * {@code ratelimit.limits.<name>.slices} where it is set (docs/stores.md, "Exact or sliced").
     *
     * @throws dev.ratelimit.core.InvalidRateLimitException naming the key and the value when it is not a boolean
     */
    public boolean slices(String name) {
        Boolean own = overrides.slices(name);
        return own != null ? own : slices;
    }

    /** {@value #STORE_SLICE_LEASE_MILLIS}: the longest an instance decides from a slice, 1 .. 60000 ms; default 1000. */
    public int sliceLeaseMillis() {
        return sliceLeaseMillis;
    }

    /** {@value #STORE_SLICE_MAX_SHARE}: the largest slice as a share of the limit, above 0 and at most 1; default 0.1. */
    public double sliceMaxShare() {
        return sliceMaxShare;
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
     * {@value #KEY_SECRET}, or null when unset: the digests of {@code per = ARGUMENT} limits are then keyed by a random
     * secret of this start (allowed with the in-process store only).
     */
    public String keySecret() {
        return keySecret;
    }

    /**
     * What {@code ratelimit.limits.<name>.*} says of a limit name, validated.
     *
     * @throws InvalidRateLimitException naming the key and the value when one is malformed
     */
    public LimitValues limit(String name) {
        return overrides.limit(name);
    }

    /** What {@code ratelimit.plans.<plan>.limits.<name>.*} says, validated. */
    public LimitValues plan(Plan plan, String name) {
        return overrides.plan(plan, name);
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
        return overrides.effective(declared, plan);
    }

    /** A limit's policy and mode after configuration. */
    public record Effective(RateLimitPolicy policy, RateLimitMode mode) {
    }

    /**
     * The limit names that configuration alone declares (both {@code permit-limit} and
     * {@code window-seconds} under {@code ratelimit.limits.<name>}), for the programmatic API.
     */
    public Set<String> configuredLimits() {
        return overrides.configuredLimits();
    }

    /**
     * The policy of a limit that configuration alone declares, or null.
     *
     * @throws InvalidRateLimitException when a value is malformed
     */
    public RateLimitPolicy configuredLimit(String name) {
        return overrides.configuredLimit(name);
    }

    /**
     * Warnings for listed {@code ratelimit.*} keys that name nothing: a limit no declaration uses (unless
     * configuration declares it whole for the programmatic API), a plan outside {@value #PLANS}, a property
     * that does not exist. One message per key, naming it.
     *
     * @param declared every limit name the application declares (annotations and the global limit)
     */
    public List<String> unknownKeys(Set<String> declared) {
        return UnknownKeys.of(read, overrides, plans, declared);
    }

    @Override
    public String toString() {
        return "RateLimitSettings[enabled=" + enabled + ", mode=" + mode + ", partition-header=" + partitionHeader
                + ", partition-by=" + partitionBy + ", " + clientAddresses.describe()
                + ", max-tracked-partitions=" + maxTrackedPartitions + ", global=" + global + ", plans=" + plans
                + ", timeout-millis=" + timeoutMillis + ", on-failure=" + onFailure + "]";
    }
}
