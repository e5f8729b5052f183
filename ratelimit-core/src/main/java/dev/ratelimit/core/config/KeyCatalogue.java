package dev.ratelimit.core.config;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every {@code ratelimit.*} key the library reads, with its type, default, whether it changes while the application
 * runs, and what it means: the one list that {@code docs/configuration.md} is generated from. Tests hold the code to
 * it: a key that {@link RateLimitSettings}, {@link AdminSettings}, {@link LimitsFile}, the Redis or the JCache store
 * reads must be listed here with the default it really has, and the Quarkus extension's configuration root must offer
 * exactly the keys of the artifacts it supports. A key that adds a setting adds its line here, and is then known: a
 * configuration that sets it is not warned about ({@link UnknownKeys}).
 *
 * <p>{@code <name>} stands for a limit's name, {@code <plan>} for a plan's. Plain data, read by nothing on the request
 * path.
 */
public final class KeyCatalogue {

    /** Where a key belongs on the reference page, in the page's order. */
    public enum Section {
        SWITCHES("Switching limits on and off"),
        PARTITIONS("Who shares a count"),
        GLOBAL("The global limit"),
        LIMITS("Limits by name"),
        PLANS("Plans"),
        LIVE("Changing limits while the application runs"),
        ADMIN("The admin API"),
        STORES("Stores"),
        TESTS("Tests");

        private final String title;

        Section(String title) {
            this.title = title;
        }

        /** The heading of the section on the reference page. */
        public String title() {
            return title;
        }
    }

    /**
     * One key.
     *
     * @param name         the key; {@code <name>} and {@code <plan>} stand for a limit's and a plan's name
     * @param section      where it belongs on the reference page
     * @param type         what it accepts, in words (units and ranges included)
     * @param defaultValue the value the library uses when the key is unset, exactly as one would write it; null when
     *                     unset means "nothing" (no such limit, no header, ...)
     * @param defaultNote  words after the default (or in its place when it is null), or null
     * @param live         true when a change is applied while the application runs (with
     *                     {@code ratelimit.refresh-seconds} or a limits file); false when it is read once, at start-up
     * @param artifact     the artifact that reads it
     * @param meaning      what it does, in one or two sentences
     */
    public record Key(String name, Section section, String type, String defaultValue, String defaultNote, boolean live,
                      String artifact, String meaning) {
    }

    private static final String CORE = "ratelimit-core";
    private static final String REDIS = "ratelimit-redis";
    private static final String JCACHE = "ratelimit-jcache";
    private static final String ALGORITHMS = "`SLIDING_WINDOW`, `STRICT_WINDOW` or `TOKEN_BUCKET`";
    private static final String MODES = "`enforce`, `shadow` or `off`";
    private static final String WINDOW = "integer, seconds, 1 .. 31536000";

    private static final List<Key> KEYS = List.of(
            new Key("ratelimit.enabled", Section.SWITCHES, "`true` or `false`", "true", null, false, CORE,
                    "`false` switches the library off: nothing is decided, counted or written, resource and bean methods "
                            + "run as if no `@RateLimit` existed, and the start-up line says so."),
            new Key("ratelimit.mode", Section.SWITCHES, MODES, "enforce", null, true, CORE,
                    "The mode of every limit that sets none of its own: `shadow` decides and counts but never refuses, "
                            + "`off` does not apply the limit at all."),

            new Key("ratelimit.partition-header", Section.PARTITIONS, "an HTTP header name", null, null, false, CORE,
                    "The request header whose value gives a caller without an authenticated principal a count of its "
                            + "own (for example `X-Api-Key`). A client chooses what it sends: pair it with a global limit, "
                            + "or with keys the application checks."),
            new Key("ratelimit.partition-by", Section.PARTITIONS,
                    "`principal`, `header`, `address`, comma-separated, each at most once", "principal,header", null,
                    false, CORE,
                    "Where the default partitioner looks for the caller, in order; the first that gives a value wins, "
                            + "else the request counts as `anonymous`. `header` needs `ratelimit.partition-header`."),
            new Key("ratelimit.trusted-proxies", Section.PARTITIONS,
                    "addresses and CIDR ranges, comma-separated", null, "none", false, CORE,
                    "The reverse proxies and load balancers in front of the application: only their `Forwarded` and "
                            + "`X-Forwarded-For` headers are believed when the client address is looked for."),
            new Key("ratelimit.ipv4-prefix", Section.PARTITIONS, "integer, bits, 1 .. 32", "32", null, false, CORE,
                    "An IPv4 client counts by the first this many bits of its address."),
            new Key("ratelimit.ipv6-prefix", Section.PARTITIONS, "integer, bits, 1 .. 128", "64", null, false, CORE,
                    "An IPv6 client counts by the first this many bits of its address (one subscriber often holds a "
                            + "whole /64)."),
            new Key("ratelimit.key-secret", Section.PARTITIONS, "text, at least 16 characters", null,
                    "a random secret per start, allowed with the in-process store only", false, CORE,
                    "The secret that keys the digests (HMAC-SHA-256) of the values that limits `per = ARGUMENT` count "
                            + "by (an account, a phone number), which are never kept in clear. Required when such a "
                            + "limit exists and the store is any other than the in-process one (Redis, JCache): the "
                            + "same on every instance: each leaves a fingerprint of it in the shared store (an HMAC of a "
                            + "fixed text, never the secret), and one whose fingerprint differs fails start-up naming "
                            + "this key. Never shown in messages."),

            new Key("ratelimit.global.permit-limit", Section.GLOBAL, "integer >= 1", null, null, true, CORE,
                    "When set, a limit named `ratelimit.global.name` covers every resource method, in addition to its "
                            + "own limits. Unset: no global limit."),
            new Key("ratelimit.global.window-seconds", Section.GLOBAL, WINDOW, "60", null, true, CORE,
                    "The global limit's window."),
            new Key("ratelimit.global.name", Section.GLOBAL, "1-64 characters from `[A-Za-z0-9._-]`", "application",
                    null, false, CORE, "The global limit's name: its count, its headers, metrics and `ratelimit.limits.<name>.*` keys."),
            new Key("ratelimit.global.scope", Section.GLOBAL, "`TRANSPORT` or `PRINCIPAL`", "TRANSPORT", null, false,
                    CORE, "Where the global limit decides: before authorization (`TRANSPORT`) or after it (`PRINCIPAL`)."),
            new Key("ratelimit.global.algorithm", Section.GLOBAL, ALGORITHMS, "SLIDING_WINDOW", null, false, CORE,
                    "The global limit's algorithm."),

            new Key("ratelimit.limits.<name>.permit-limit", Section.LIMITS, "integer >= 1", null, null, true, CORE,
                    "Replaces `permitLimit` of every limit named `<name>`, at every level (the global limit included). "
                            + "Set together with `window-seconds`, it declares a limit that only code spends from."),
            new Key("ratelimit.limits.<name>.window-seconds", Section.LIMITS, WINDOW, null, null, true, CORE,
                    "Replaces `windowSeconds` of every limit named `<name>`."),
            new Key("ratelimit.limits.<name>.algorithm", Section.LIMITS, ALGORITHMS, null, null, true, CORE,
                    "Replaces the algorithm of every limit named `<name>`."),
            new Key("ratelimit.limits.<name>.mode", Section.LIMITS, MODES, null, null, true, CORE,
                    "The mode of every limit named `<name>`, over `ratelimit.mode`."),
            new Key("ratelimit.limits.<name>.max-wait-millis", Section.LIMITS, "integer, milliseconds, >= 0", null,
                    null, true, CORE,
                    "Replaces `maxWaitMillis`: how long a call over the limit may wait for its permits (`0`: refused at "
                            + "once). Only on CDI bean and Rest Client methods; a resource method never waits."),
            new Key("ratelimit.limits.<name>.per", Section.LIMITS, "`caller`, `application`, `address` or `argument`",
                    null, null, true, CORE,
                    "Replaces `per`: each caller's count, one count for the whole application, one per client address, "
                            + "or one per value of the method's `@RateLimitKey` parameter."),
            new Key("ratelimit.limits.<name>.failures-only", Section.LIMITS, "`true` or `false`", null, null, true, CORE,
                    "Replaces `failuresOnly`: `true` gives a request's permit back when it succeeds, so the count "
                            + "holds failures (and requests in flight) only."),
            new Key("ratelimit.limits.<name>.failure-statuses", Section.LIMITS,
                    "HTTP statuses from 400 to 599, codes and ranges, comma-separated", null,
                    "`400-599` when the limit counts only failures", true, CORE,
                    "Replaces `failureStatuses`: the response statuses that count as failures for a limit that counts "
                            + "only failures (`401,403`: only refused credentials)."),

            new Key("ratelimit.plans", Section.PLANS,
                    "plan names, comma-separated, each 1-64 characters from `[A-Za-z0-9._-]`", null, "none", true,
                    CORE, "The plans of callers, in order of precedence: a caller is in the first plan whose role it has."),
            new Key("ratelimit.plans.<plan>.role", Section.PLANS, "a role name", null, "the plan's name", true, CORE,
                    "The role (`SecurityContext.isUserInRole`) that puts an authenticated caller in the plan."),
            new Key("ratelimit.plans.<plan>.limits.<name>.permit-limit", Section.PLANS, "integer >= 1", null, null,
                    true, CORE, "The plan's `permitLimit` for the limit `<name>`."),
            new Key("ratelimit.plans.<plan>.limits.<name>.window-seconds", Section.PLANS, WINDOW, null, null, true,
                    CORE, "The plan's `windowSeconds` for the limit `<name>`."),
            new Key("ratelimit.plans.<plan>.limits.<name>.algorithm", Section.PLANS, ALGORITHMS, null, null, true,
                    CORE, "The plan's algorithm for the limit `<name>`."),
            new Key("ratelimit.plans.<plan>.limits.<name>.mode", Section.PLANS, MODES, null, null, true, CORE,
                    "The plan's mode for the limit `<name>`; `off` exempts the plan's callers from it."),

            new Key("ratelimit.limits-file", Section.LIVE, "a file path", null, null, false, CORE,
                    "A properties file of the live keys (those marked live here); its values win over every other "
                            + "source, and it is read again while the application runs. A Kubernetes ConfigMap mounted "
                            + "as a file is the intended use."),
            new Key("ratelimit.refresh-seconds", Section.LIVE, "integer, seconds, 0 .. 86400", "0",
                    "`10` when `ratelimit.limits-file` is set", false, CORE,
                    "How often the limits file (when its modification time or size changed) and the live keys of the "
                            + "configuration are read again; `0`: once, at start-up."),

            new Key("ratelimit.admin.enabled", Section.ADMIN, "`true` or `false`", "false", null, false, CORE,
                    "`true` serves the admin API over HTTP, to authenticated callers in `ratelimit.admin.role`."),
            new Key("ratelimit.admin.role", Section.ADMIN, "a role name", null, null, false, CORE,
                    "The role an operator needs. Required when the admin API is enabled: start-up fails without it."),
            new Key("ratelimit.admin.path", Section.ADMIN,
                    "a path: starts with `/`, segments of `[A-Za-z0-9._~-]`, no trailing `/`", "/ratelimit", null,
                    false, CORE, "Where the admin API is served, under the application's base path."),

            new Key("ratelimit.max-tracked-partitions", Section.STORES, "integer >= 1", "10000", null, false, CORE,
                    "The most counts the in-process store keeps. Each limit keeps a share of half of them as room of "
                            + "its own, the rest is common room. When a limit has no room, a request that needs a new "
                            + "count of it is let through uncounted (refused, when the limit counts only failures), with "
                            + "a warning."),
            new Key("ratelimit.store.timeout-millis", Section.STORES, "integer, milliseconds, 1 .. 60000", "250", null,
                    false, CORE, "The longest any store may take to answer a call."),
            new Key("ratelimit.store.on-failure", Section.STORES, "`fail`, `allow` or `local`", "fail", null, false,
                    CORE, "What a call gets when the store fails or does not answer in time: `fail` (500, empty body), "
                            + "`allow` (let through uncounted), `local` (counted in this instance until the store answers)."),
            new Key("ratelimit.store.retry-millis", Section.STORES, "integer, milliseconds, 0 .. 3600000", "1000",
                    null, false, CORE, "Once a call timed out or could not reach the store, how long every call gets the "
                            + "failure policy at once, without trying the store; then one call tries it. `0`: every call "
                            + "tries the store."),
            new Key("ratelimit.store.refusal-memory-millis", Section.STORES, "integer, milliseconds, 0 .. 3600000",
                    "5000", null, false, CORE, "How long, at most, an instance answers a shared store's refusal itself "
                            + "(never past the refusal's retry-after), so that a flood from one caller is not a flood of "
                            + "store calls. `0`: every request asks the store."),
            new Key("ratelimit.redis.timeout-millis", Section.STORES, "integer, milliseconds, 1 .. 60000", null,
                    "`ratelimit.store.timeout-millis` applies", false, CORE,
                    "The older spelling of `ratelimit.store.timeout-millis`, read when that key is unset."),
            new Key("ratelimit.redis.on-failure", Section.STORES, "`fail`, `allow` or `local`", null,
                    "`ratelimit.store.on-failure` applies", false, CORE,
                    "The older spelling of `ratelimit.store.on-failure`, read when that key is unset."),
            new Key("ratelimit.redis.uri", Section.STORES,
                    "`redis://[[user]:password@]host[:port][/db]`, `rediss://...` (TLS), "
                            + "`redis-sentinel://host:26379,host2:26379#master`", null, null, false, REDIS,
                    "Where Redis is. Set, every instance counts in Redis; unset, the in-process store counts. The "
                            + "password never appears in logs."),
            new Key("ratelimit.redis.cluster", Section.STORES, "`true` or `false`", "false", null, false, REDIS,
                    "`true`: the URI is a seed node of a Redis Cluster."),
            new Key("ratelimit.redis.key-prefix", Section.STORES, "at most 256 characters, no `{` or `}`", "ratelimit:",
                    null, false, REDIS, "The text in front of every Redis key; applications sharing a Redis each take their own."),
            new Key("ratelimit.jcache.cache", Section.STORES, "a cache name", null, null, false, JCACHE,
                    "The JCache cache that keeps the counts (created when it does not exist). Set, every instance counts "
                            + "in it, on the data grid; unset, the in-process store counts."),
            new Key("ratelimit.jcache.provider", Section.STORES, "the class name of a `javax.cache.spi.CachingProvider`",
                    null, "the `CacheManager` CDI bean (Payara's), else the only provider on the class path", false,
                    JCACHE, "The JCache provider that opens the cache."),
            new Key("ratelimit.jcache.uri", Section.STORES,
                    "a URI, e.g. `classpath:hazelcast.xml` or `file:///etc/app/hazelcast.xml`", null,
                    "the provider's default", false, JCACHE,
                    "The provider's configuration. Every instance must name the same URI."),
            new Key("ratelimit.jcache.mode", Section.STORES, "`auto`, `processor` or `cas`", "auto", null, false, JCACHE,
                    "How counts are decided: an entry processor on the member that owns the count, else compare-and-set "
                            + "(`auto`, found out at start-up); always the processor; always compare-and-set."),
            new Key("ratelimit.jcache.expiry-seconds", Section.STORES, "integer, seconds, 1 .. 31622400", "4050", null,
                    false, JCACHE, "When the store creates the cache: how long after its last write a count is kept. At "
                            + "least the longest window plus one eighth of it."),
            new Key("ratelimit.jcache.threads", Section.STORES, "integer, 1 .. 1024", "16", null, false, JCACHE,
                    "The threads that wait for the grid; when 10000 calls already wait, a call fails at once and "
                            + "`ratelimit.store.on-failure` decides."),

            new Key("ratelimit.test.manual-clock", Section.TESTS, "`true` or `false`", "false", null, false, CORE,
                    "Tests only: `true` makes every limit count on a clock that tests move through `RateLimitTesting`. "
                            + "Never in production."));

    private KeyCatalogue() {
    }

    /** Every key, in the reference page's order. */
    public static List<Key> keys() {
        return KEYS;
    }

    /**
     * The names of the keys without a limit's or a plan's name in them ({@code <name>}, {@code <plan>}), sorted: the
     * keys that a configuration sets exactly as they are written here.
     */
    public static Set<String> fixedNames() {
        Set<String> names = new TreeSet<>();
        for (Key key : KEYS) {
            if (key.name().indexOf('<') < 0) {
                names.add(key.name());
            }
        }
        return names;
    }

    /** The names of the keys that {@code artifact} reads (e.g. {@code ratelimit-redis}), sorted. */
    public static Set<String> namesReadBy(String artifact) {
        Set<String> names = new TreeSet<>();
        for (Key key : KEYS) {
            if (key.artifact().equals(artifact)) {
                names.add(key.name());
            }
        }
        return names;
    }
}
