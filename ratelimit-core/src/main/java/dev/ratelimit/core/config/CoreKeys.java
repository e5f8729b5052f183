package dev.ratelimit.core.config;

import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyCatalogue.Section;
import java.util.List;

/**
 * The keys that {@code ratelimit-core} itself reads ({@link RateLimitSettings}, {@link AdminSettings},
 * {@link LimitsFile}), in the reference page's order: the part of the {@link KeyCatalogue} that is there on every
 * class path. A store module's keys are its own ({@link KeyProvider}). Plain data. Not an API.
 */
final class CoreKeys implements KeyProvider {

    /** The artifact that reads these keys. */
    static final String ARTIFACT = "ratelimit-core";
    private static final String CORE = ARTIFACT;
    private static final String ALGORITHMS = "`SLIDING_WINDOW`, `STRICT_WINDOW` or `TOKEN_BUCKET`";
    private static final String MODES = "`enforce`, `shadow` or `off`";
    private static final String WINDOW = "integer, seconds, 1 .. 31536000";

    static final List<Key> KEYS = List.of(
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
                            + "limit exists and the store is any other than the in-process one (one that instances share): the "
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
            new Key("ratelimit.limits.<name>.slices", Section.LIMITS, "`true` or `false`", null,
                    "`ratelimit.store.slices`", true, CORE,
                    "`true` decides the limit in slices on a shared store: an instance takes several permits in one "
                            + "store call and decides the count's requests at home, never over the limit "
                            + "([Exact or sliced](stores.md#exact-or-sliced))."),

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
            new Key("ratelimit.store.slices", Section.STORES, "`true` or `false`", "false", null, false, CORE,
                    "`true` decides every limit of a shared store in slices (a limit's own `slices` key wins): busy "
                            + "counts take several permits per store call and decide at home, never over the limit."),
            new Key("ratelimit.store.slice-lease-millis", Section.STORES, "integer, milliseconds, 1 .. 60000", "1000",
                    null, false, CORE, "The longest an instance decides from a slice before its unused permits go back "
                            + "(a window's slice also ends with the eighth of the window it was spent in)."),
            new Key("ratelimit.store.slice-max-share", Section.STORES, "decimal number above 0, at most 1", "0.1", null,
                    false, CORE, "The largest slice, as a share of the limit's permits (a slice is also never more than "
                            + "half of what the store says remains)."),
            new Key("ratelimit.test.manual-clock", Section.TESTS, "`true` or `false`", "false", null, false, CORE,
                    "Tests only: `true` makes every limit count on a clock that tests move through `RateLimitTesting`. "
                            + "Never in production."));

    @Override
    public List<Key> keys() {
        return KEYS;
    }
}
