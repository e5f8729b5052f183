package dev.ratelimit.quarkus.runtime;

import io.quarkus.runtime.annotations.ConfigDocDefault;
import io.quarkus.runtime.annotations.ConfigDocMapKey;
import io.quarkus.runtime.annotations.ConfigDocSection;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code ratelimit.*} keys, documented the Quarkus way (the extension's configuration reference, the Dev UI's
 * configuration editor, IDE completion). Read at run time, from any source: {@code application.properties}
 * (profiles included: {@code %prod.ratelimit.global.permit-limit=1000}), system properties, environment variables
 * ({@code RATELIMIT_GLOBAL_PERMIT_LIMIT}), the application's {@code META-INF/microprofile-config.properties}.
 *
 * <p>The library reads and validates them itself, exactly as on every other runtime (a malformed value fails the
 * start naming the key and the value; a key naming no limit is a warning): every value is a string here, so that
 * this mapping never refuses what the library accepts, and keys it does not list (other modules') are not refused
 * either ({@link RateLimitConfigBuilder}).
 */
@ConfigMapping(prefix = "ratelimit")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface RateLimitConfig {

    /**
     * {@code false}: nothing is decided, counted or written; resource and bean methods run as if no
     * {@code @RateLimit} existed; the start-up line says so.
     */
    @ConfigDocDefault("true")
    Optional<String> enabled();

    /** The mode of every limit that sets none: {@code enforce}, {@code shadow} (decided and counted, never refusing, no header) or {@code off}. */
    @ConfigDocDefault("enforce")
    Optional<String> mode();

    /**
     * The request header that partitions requests without an authenticated caller (e.g. {@code X-Api-Key}): each
     * value counts apart. A client chooses its own value: pair it with a global limit, or with keys the application
     * authenticates.
     */
    Optional<String> partitionHeader();

    /**
     * Where the default partitioner looks for the caller, in order, comma-separated: {@code principal} (the
     * authenticated caller), {@code header} (the partition header), {@code address} (the client address).
     */
    @ConfigDocDefault("principal,header")
    Optional<String> partitionBy();

    /**
     * Addresses and CIDR ranges (comma-separated) of the proxies whose {@code Forwarded} and {@code X-Forwarded-For}
     * headers are believed; none by default: the connection's peer is the client.
     */
    Optional<String> trustedProxies();

    /** The bits of an IPv6 client address that count (1-128): one count per /64 by default. */
    @ConfigDocDefault("64")
    Optional<String> ipv6Prefix();

    /** The bits of an IPv4 client address that count (1-32). */
    @ConfigDocDefault("32")
    Optional<String> ipv4Prefix();

    /**
     * The secret (at least 16 characters) that keys the digests of the values limits per argument count by (an
     * account, a phone number), which are never kept in clear; the same on every instance. Required with a shared
     * store (Redis) when such a limit exists; else a random secret per start.
     */
    Optional<String> keySecret();

    /**
     * The most counts the in-process store keeps (an integer >= 1). Each limit keeps a share of half of them as room of
     * its own; a limit without room lets a new caller through uncounted (refuses it, when the limit counts only
     * failures), with a warning.
     */
    @ConfigDocDefault("10000")
    Optional<String> maxTrackedPartitions();

    /** A limit on every resource method, in addition to its own. */
    @ConfigDocSection
    Global global();

    /** Changes every limit of a name, at every level (the global limit included), without a rebuild. */
    @ConfigDocMapKey("limit-name")
    Map<String, LimitValues> limits();

    /** Plan names, comma-separated, in order of precedence (each 1-64 characters from {@code [A-Za-z0-9._-]}). */
    @WithName("plans")
    Optional<String> planNames();

    /** A plan's role and its values for named limits. */
    @WithName("plans")
    @ConfigDocMapKey("plan")
    Map<String, PlanValues> plans();

    /** Every store, the in-process one and Redis: its timeout and failure policy. */
    @ConfigDocSection
    Store store();

    /** The Redis store ({@code ratelimit-redis}): one count shared by every instance. */
    @ConfigDocSection
    Redis redis();

    /** Tests of the application. */
    Test test();

    /**
     * A properties file of live keys ({@code ratelimit.mode}, {@code ratelimit.limits.*},
     * {@code ratelimit.plans*}, {@code ratelimit.global.permit-limit} and {@code .window-seconds}), read again every
     * {@code refresh-seconds}; its values win over every other source. A typo keeps the last good values, with one
     * warning.
     */
    Optional<String> limitsFile();

    /**
     * How often, in seconds (0 .. 86400), the limits file and the live keys are read again while the application runs;
     * 0: once, at start-up.
     */
    @ConfigDocDefault("10 with a limits file, else 0")
    Optional<String> refreshSeconds();

    /** The admin API: effective limits, a caller's count, a reset, who is refused most. */
    @ConfigDocSection
    Admin admin();

    /** The admin API. */
    interface Admin {
        /** {@code true}: serve the admin API (only to authenticated callers in {@code role}). */
        @ConfigDocDefault("false")
        Optional<String> enabled();

        /** The role a caller needs; required when enabled. */
        Optional<String> role();

        /** Where it is served, under the application's base path: starts with {@code /}, no trailing {@code /}. */
        @ConfigDocDefault("/ratelimit")
        Optional<String> path();
    }

    /** The global limit. */
    interface Global {
        /** When set (an integer >= 1), a global limit covers every resource method, in addition to its own. */
        Optional<String> permitLimit();

        /** Its window in seconds (1 .. 31536000). */
        @ConfigDocDefault("60")
        Optional<String> windowSeconds();

        /** Its name (1-64 characters from {@code [A-Za-z0-9._-]}): the name its headers, metrics and keys use. */
        @ConfigDocDefault("application")
        Optional<String> name();

        /** Its scope: {@code TRANSPORT} (before authorization) or {@code PRINCIPAL} (after it). */
        @ConfigDocDefault("TRANSPORT")
        Optional<String> scope();

        /** Its algorithm: {@code SLIDING_WINDOW}, {@code STRICT_WINDOW} or {@code TOKEN_BUCKET}. */
        @ConfigDocDefault("SLIDING_WINDOW")
        Optional<String> algorithm();
    }

    /** Values of the limits of one name. */
    interface LimitValues {
        /** Replaces {@code permitLimit} (an integer >= 1). With {@code window-seconds}, it declares a limit for the programmatic API. */
        Optional<String> permitLimit();

        /** Replaces {@code windowSeconds} (1 .. 31536000). */
        Optional<String> windowSeconds();

        /** Replaces the algorithm: {@code SLIDING_WINDOW}, {@code STRICT_WINDOW} or {@code TOKEN_BUCKET}. */
        Optional<String> algorithm();

        /** {@code enforce}, {@code shadow} or {@code off} (the limit is not applied at all). */
        Optional<String> mode();

        /**
         * Replaces {@code maxWaitMillis} ({@code ratelimit.limits.<name>} only): how long a bean or Rest Client
         * call may wait for its permits, in milliseconds (0: refused at once). A resource method never waits.
         */
        Optional<String> maxWaitMillis();

        /**
         * Replaces {@code per} ({@code ratelimit.limits.<name>} only): {@code caller}, {@code application} (one count for
         * all), {@code address} (one per client address) or {@code argument} (one per value of the method's
         * {@code @RateLimitKey} parameter).
         */
        Optional<String> per();

        /**
         * Replaces {@code failuresOnly} ({@code ratelimit.limits.<name>} only): {@code true} to count only failed calls
         * (a call that succeeds gives its permit back).
         */
        Optional<String> failuresOnly();

        /**
         * Replaces {@code failureStatuses} ({@code ratelimit.limits.<name>} only): the HTTP statuses that are failures
         * for a limit that counts only failures, codes and ranges from 400 to 599 ({@code 400-599}, {@code 401,403}).
         */
        @ConfigDocDefault("400-599")
        Optional<String> failureStatuses();

        /**
         * Replaces {@code ratelimit.store.slices} for this limit ({@code ratelimit.limits.<name>} only): {@code true}
         * decides it in slices on a shared store (several permits per store call, decided at home, never over the
         * limit).
         */
        Optional<String> slices();
    }

    /** One plan of callers. */
    interface PlanValues {
        /** The role that puts an authenticated caller in the plan ({@code SecurityContext.isUserInRole}). */
        @ConfigDocDefault("the plan's name")
        Optional<String> role();

        /** The plan's values for named limits ({@code mode=off} exempts the plan from that limit). */
        @ConfigDocMapKey("limit-name")
        Map<String, PlanLimitValues> limits();
    }

    /** A plan's values for the limits of one name: the size and the mode, never {@code max-wait-millis} or {@code per}. */
    interface PlanLimitValues {
        /** The plan's {@code permitLimit} (an integer >= 1). */
        Optional<String> permitLimit();

        /** The plan's {@code windowSeconds} (1 .. 31536000). */
        Optional<String> windowSeconds();

        /** The plan's algorithm: {@code SLIDING_WINDOW}, {@code STRICT_WINDOW} or {@code TOKEN_BUCKET}. */
        Optional<String> algorithm();

        /** {@code enforce}, {@code shadow} or {@code off} (the plan's callers are not limited by it). */
        Optional<String> mode();
    }

    /** The store's timeout and failure policy. */
    interface Store {
        /** The longest a call waits for the store, any store, in milliseconds (1 .. 60000). */
        @ConfigDocDefault("250")
        Optional<String> timeoutMillis();

        /**
         * What a call gets when the store fails or does not answer in time: {@code fail} (500, empty body),
         * {@code allow} (let through uncounted), {@code local} (counted in process until the store answers again).
         */
        @ConfigDocDefault("fail")
        Optional<String> onFailure();

        /**
         * How long, at most, in milliseconds (0 .. 3600000), an instance answers a refusal of a store that several
         * instances share itself, until its retry-after, instead of asking the store again; 0: the store is asked
         * every time.
         */
        @ConfigDocDefault("5000")
        Optional<String> refusalMemoryMillis();

        /**
         * Once the store could not be reached, how long, in milliseconds (0 .. 3600000), calls get the failure policy
         * at once, without calling it, before one call tries it again; 0: every call tries the store.
         */
        @ConfigDocDefault("1000")
        Optional<String> retryMillis();

        /**
         * {@code true} decides every limit of a shared store in slices (a limit's own {@code slices} wins): a busy
         * count takes several permits in one store call and decides its requests at home, never over the limit.
         */
        @ConfigDocDefault("false")
        Optional<String> slices();

        /**
         * The longest an instance decides from a slice before its unused permits go back, in milliseconds
         * (1 .. 60000); a window's slice also ends with the eighth of the window it was spent in.
         */
        @ConfigDocDefault("1000")
        Optional<String> sliceLeaseMillis();

        /**
         * The largest slice, as a share of the limit's permits (a decimal number above 0, at most 1); a slice is also
         * never more than half of what the store says remains.
         */
        @ConfigDocDefault("0.1")
        Optional<String> sliceMaxShare();
    }

    /** The Redis store. */
    interface Redis {
        /** {@code redis://[[user]:password@]host[:port][/db]}, {@code rediss://...}, {@code redis-sentinel://h1:26379,h2:26379#master}. */
        Optional<String> uri();

        /** {@code true}: the URI is a seed node of a Redis Cluster. */
        @ConfigDocDefault("false")
        Optional<String> cluster();

        /** The text before every key (no braces); applications sharing a Redis each take their own. */
        @ConfigDocDefault("ratelimit:")
        Optional<String> keyPrefix();

        /**
         * Which client carries the store's calls on the other runtimes ({@code auto}, {@code jedis} or {@code lettuce});
         * on Quarkus the store always runs on the Quarkus Redis client, whatever this says.
         */
        @ConfigDocDefault("auto")
        Optional<String> client();

        /** The older spelling of {@code ratelimit.store.timeout-millis}. */
        Optional<String> timeoutMillis();

        /** The older spelling of {@code ratelimit.store.on-failure}. */
        Optional<String> onFailure();
    }

    /** Tests only. */
    interface Test {
        /** {@code true}: limits count on a clock that tests move ({@code RateLimitTesting}); never in production. */
        @ConfigDocDefault("false")
        Optional<String> manualClock();
    }
}
