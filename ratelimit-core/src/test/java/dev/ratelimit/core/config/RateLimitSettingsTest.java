package dev.ratelimit.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code ratelimit.*} keys (configuration, overrides and shadow mode, plans, algorithms, the engine): defaults,
 * values, validation, overrides, unknown keys.
 */
class RateLimitSettingsTest {

    private static final RateLimitPolicy DEFAULT = new RateLimitPolicy("default", 3, 60);

    // ---------------------------------------------------------------- defaults and values

    @Test
    void everyKeyHasItsDefaultWhenNothingIsConfigured() {
        RateLimitSettings settings = settings();

        assertThat(settings.enabled()).isTrue();
        assertThat(settings.mode()).isEqualTo(RateLimitMode.ENFORCE);
        assertThat(settings.partitionHeader()).isNull();
        assertThat(settings.maxTrackedPartitions()).isEqualTo(10_000);
        assertThat(settings.global()).isNull();
        assertThat(settings.globalScope()).isEqualTo(RateLimitScope.TRANSPORT);
        assertThat(settings.plans()).isEmpty();
        assertThat(settings.timeoutMillis()).isEqualTo(250);
        assertThat(settings.onFailure()).isEqualTo(OnFailure.FAIL);
        assertThat(settings.manualClock()).isFalse();
        assertThat(settings.limit("default")).isEqualTo(LimitValues.NONE);
        assertThat(settings.configuredLimits()).isEmpty();
        assertThat(settings.configuredLimit("default")).isNull();
    }

    @Test
    void globalLimitTakesItsDefaultsForWindowNameScopeAndAlgorithm() {
        RateLimitSettings settings = settings("ratelimit.global.permit-limit", "1000");

        assertThat(settings.global()).isEqualTo(new RateLimitPolicy("application", 1000, 60, RateLimitAlgorithm.SLIDING_WINDOW));
        assertThat(settings.globalScope()).isEqualTo(RateLimitScope.TRANSPORT);
    }

    @Test
    void everyKeyIsRead() {
        RateLimitSettings settings = settings(
                "ratelimit.enabled", "false",
                "ratelimit.mode", "shadow",
                "ratelimit.partition-header", "X-Api-Key",
                "ratelimit.max-tracked-partitions", "250",
                "ratelimit.global.permit-limit", "7",
                "ratelimit.global.window-seconds", "3600",
                "ratelimit.global.name", "tenant.all",
                "ratelimit.global.scope", "principal",
                "ratelimit.global.algorithm", "token-bucket",
                "ratelimit.plans", "gold, internal",
                "ratelimit.plans.internal.role", "service",
                "ratelimit.store.timeout-millis", "60000",
                "ratelimit.store.on-failure", "local",
                "ratelimit.test.manual-clock", "TRUE");

        assertThat(settings.enabled()).isFalse();
        assertThat(settings.mode()).isEqualTo(RateLimitMode.SHADOW);
        assertThat(settings.partitionHeader()).isEqualTo("X-Api-Key");
        assertThat(settings.maxTrackedPartitions()).isEqualTo(250);
        assertThat(settings.global()).isEqualTo(new RateLimitPolicy("tenant.all", 7, 3600, RateLimitAlgorithm.TOKEN_BUCKET));
        assertThat(settings.globalScope()).isEqualTo(RateLimitScope.PRINCIPAL);
        assertThat(settings.plans()).containsExactly(new Plan("gold", 1, "gold"), new Plan("internal", 2, "service"));
        assertThat(settings.timeoutMillis()).isEqualTo(60_000);
        assertThat(settings.onFailure()).isEqualTo(OnFailure.LOCAL);
        assertThat(settings.manualClock()).isTrue();
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "enforce        | ENFORCE",
        "SHADOW         | SHADOW",
        "Off            | OFF"})
    void modeIsReadWithoutRegardToCase(String value, RateLimitMode mode) {
        assertThat(settings("ratelimit.mode", value).mode()).isEqualTo(mode);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "SLIDING_WINDOW | SLIDING_WINDOW",
        "strict_window  | STRICT_WINDOW",
        "token-bucket   | TOKEN_BUCKET"})
    void algorithmIsReadWithoutRegardToCaseWithDashOrUnderscore(String value, RateLimitAlgorithm algorithm) {
        RateLimitSettings settings = settings("ratelimit.limits.burst.algorithm", value,
                "ratelimit.global.permit-limit", "10", "ratelimit.global.algorithm", value);

        assertThat(settings.limit("burst").algorithm()).isEqualTo(algorithm);
        assertThat(settings.global().algorithm()).isEqualTo(algorithm);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"fail | FAIL", "ALLOW | ALLOW", "Local | LOCAL"})
    void onFailureIsReadWithoutRegardToCase(String value, OnFailure onFailure) {
        assertThat(settings("ratelimit.store.on-failure", value).onFailure()).isEqualTo(onFailure);
    }

    @Test
    void timeoutAcceptsItsBounds() {
        assertThat(settings("ratelimit.store.timeout-millis", "1").timeoutMillis()).isEqualTo(1);
        assertThat(settings("ratelimit.store.timeout-millis", "60000").timeoutMillis()).isEqualTo(60_000);
    }

    @Test
    void valuesAreStrippedAndBlankValuesCountAsUnset() {
        RateLimitSettings settings = settings(
                "ratelimit.partition-header", "   ",
                "ratelimit.max-tracked-partitions", " 42 ",
                "ratelimit.global.permit-limit", " 5 ",
                "ratelimit.global.name", "",
                "ratelimit.mode", " ",
                "ratelimit.store.on-failure", "",
                "ratelimit.limits.burst.permit-limit", " 9 ");

        assertThat(settings.partitionHeader()).isNull();
        assertThat(settings.maxTrackedPartitions()).isEqualTo(42);
        assertThat(settings.global()).isEqualTo(new RateLimitPolicy("application", 5, 60));
        assertThat(settings.mode()).isEqualTo(RateLimitMode.ENFORCE);
        assertThat(settings.onFailure()).isEqualTo(OnFailure.FAIL);
        assertThat(settings.limit("burst").permitLimit()).isEqualTo(9);
    }

    @Test
    void limitValuesAreReadPerProperty() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.burst.permit-limit", "20",
                "ratelimit.limits.burst.window-seconds", "2",
                "ratelimit.limits.burst.algorithm", "strict-window",
                "ratelimit.limits.burst.mode", "shadow",
                "ratelimit.limits.hourly.mode", "off");

        assertThat(settings.limit("burst"))
                .isEqualTo(new LimitValues(20, 2, RateLimitAlgorithm.STRICT_WINDOW, RateLimitMode.SHADOW));
        assertThat(settings.limit("hourly")).isEqualTo(new LimitValues(null, null, null, RateLimitMode.OFF));
        assertThat(settings.limit("other")).isEqualTo(LimitValues.NONE);
    }

    @Test
    void limitNamesMayContainDots() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.api.v1.permit-limit", "7",
                "ratelimit.limits.api.v1.mode", "shadow");

        assertThat(settings.limit("api.v1")).isEqualTo(new LimitValues(7, null, null, RateLimitMode.SHADOW));
        assertThat(settings.limit("api")).isEqualTo(LimitValues.NONE);
        assertThat(settings.effective(new RateLimitPolicy("api.v1", 100, 60), null))
                .isEqualTo(new Effective(new RateLimitPolicy("api.v1", 7, 60), RateLimitMode.SHADOW));
        assertThat(settings.unknownKeys(Set.of("api.v1"))).isEmpty();
        assertThat(settings.unknownKeys(Set.of("api"))).hasSize(2).allMatch(w -> w.contains("\"api.v1\""));
    }

    // ---------------------------------------------------------------- older spellings

    @Test
    void aModulesOlderSpellingsAreReadWhenTheStoreKeysAreUnset() {
        RateLimitSettings settings = withExampleStore(
                ExampleStoreKeys.TIMEOUT_MILLIS, "1000",
                ExampleStoreKeys.ON_FAILURE, "allow");

        assertThat(settings.timeoutMillis()).isEqualTo(1000);
        assertThat(settings.onFailure()).isEqualTo(OnFailure.ALLOW);
        assertThat(settings.unknownKeys(Set.of())).isEmpty();
    }

    @Test
    void aModulesOlderSpellingsAreIgnoredWhenTheStoreKeysAreSet() {
        RateLimitSettings settings = withExampleStore(
                ExampleStoreKeys.TIMEOUT_MILLIS, "1000",
                ExampleStoreKeys.ON_FAILURE, "allow",
                "ratelimit.store.timeout-millis", "50",
                "ratelimit.store.on-failure", "local");

        assertThat(settings.timeoutMillis()).isEqualTo(50);
        assertThat(settings.onFailure()).isEqualTo(OnFailure.LOCAL);
    }

    @Test
    void anOlderSpellingIsReadOnlyWhenItsModuleIsThere() {
        RateLimitSettings settings = settings(ExampleStoreKeys.TIMEOUT_MILLIS, "1000");

        assertThat(settings.timeoutMillis()).isEqualTo(RateLimitSettings.DEFAULT_TIMEOUT_MILLIS);
        assertThat(settings.unknownKeys(Set.of())).containsExactly(ExampleStoreKeys.TIMEOUT_MILLIS
                + " is not a ratelimit setting");
    }

    @Test
    void malformedOlderSpellingFailsNamingTheOlderKey() {
        assertThatThrownBy(() -> withExampleStore(ExampleStoreKeys.TIMEOUT_MILLIS, "soon"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("ratelimit configuration: ratelimit.example.timeout-millis must be an integer from 1 to "
                        + "60000, was \"soon\"");
        assertThatThrownBy(() -> withExampleStore(ExampleStoreKeys.ON_FAILURE, "sometimes"))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(ExampleStoreKeys.ON_FAILURE)
                .hasMessageContaining("\"sometimes\"");
    }

    // ---------------------------------------------------------------- malformed values

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "ratelimit.enabled                          | maybe",
        "ratelimit.mode                             | strict",
        "ratelimit.partition-header                 | X Api Key",
        "ratelimit.partition-header                 | X-Api-Key:",
        "ratelimit.max-tracked-partitions           | abc",
        "ratelimit.max-tracked-partitions           | 0",
        "ratelimit.max-tracked-partitions           | -5",
        "ratelimit.max-tracked-partitions           | 1.5",
        "ratelimit.max-tracked-partitions           | 99999999999",
        "ratelimit.global.permit-limit              | -1",
        "ratelimit.global.permit-limit              | 0",
        "ratelimit.global.permit-limit              | lots",
        "ratelimit.global.window-seconds            | 0",
        "ratelimit.global.window-seconds            | -60",
        "ratelimit.global.window-seconds            | 31536001",
        "ratelimit.global.window-seconds            | 1m",
        "ratelimit.global.name                      | has space",
        "ratelimit.global.name                      | a:b",
        "ratelimit.global.scope                     | EVERYWHERE",
        "ratelimit.global.algorithm                 | leaky-bucket",
        "ratelimit.store.timeout-millis             | 0",
        "ratelimit.store.timeout-millis             | 60001",
        "ratelimit.store.timeout-millis             | soon",
        "ratelimit.store.on-failure                 | sometimes",
        "ratelimit.test.manual-clock                | yes",
        "ratelimit.limits.burst.permit-limit        | lots",
        "ratelimit.limits.burst.permit-limit        | 0",
        "ratelimit.limits.burst.window-seconds      | -1",
        "ratelimit.limits.burst.window-seconds      | 31536001",
        "ratelimit.limits.burst.algorithm           | fixed-window",
        "ratelimit.limits.burst.mode                | loud",
        "ratelimit.limits.api.v1.permit-limit       | many",
        "ratelimit.plans.gold.limits.burst.permit-limit  | lots",
        "ratelimit.plans.gold.limits.burst.window-seconds | 0",
        "ratelimit.plans.gold.limits.burst.algorithm | fixed",
        "ratelimit.plans.gold.limits.burst.mode     | maybe"})
    void malformedValueFailsStartUpNamingTheKeyAndTheValue(String key, String value) {
        Map<String, String> values = new HashMap<>();
        values.put("ratelimit.global.permit-limit", "100");
        values.put("ratelimit.plans", "gold");
        values.put(key, value);

        assertThatThrownBy(() -> RateLimitSettings.of(values))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("\"" + value + "\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "gold,pl@tinum     | pl@tinum",
        "gold,,silver      | ''",
        "'gold, gold'      | gold"})
    void malformedPlanListFailsNamingTheKeyTheValueAndThePlan(String plans, String culprit) {
        assertThatThrownBy(() -> settings("ratelimit.plans", plans))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.plans")
                .hasMessageContaining("\"" + plans + "\"")
                .hasMessageContaining("\"" + culprit + "\"");
    }

    @Test
    void planNameLongerThan64CharactersFails() {
        String name = "p".repeat(65);

        assertThatThrownBy(() -> settings("ratelimit.plans", name))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.plans")
                .hasMessageContaining(name);
        assertThat(settings("ratelimit.plans", "p".repeat(64)).plans()).hasSize(1);
    }

    @Test
    void planListedTwiceSaysSo() {
        assertThatThrownBy(() -> settings("ratelimit.plans", "gold,silver,gold"))
                .hasMessage("ratelimit configuration: ratelimit.plans must be distinct plan names (\"gold\" appears twice), "
                        + "was \"gold,silver,gold\"");
    }

    @Test
    void malformedMessagesSayWhatWasExpected() {
        assertThatThrownBy(() -> settings("ratelimit.max-tracked-partitions", "abc"))
                .hasMessage("ratelimit configuration: ratelimit.max-tracked-partitions must be an integer >= 1, was \"abc\"");
        assertThatThrownBy(() -> settings("ratelimit.limits.burst.permit-limit", "lots"))
                .hasMessage("ratelimit configuration: ratelimit.limits.burst.permit-limit must be an integer >= 1, "
                        + "was \"lots\"");
        assertThatThrownBy(() -> settings("ratelimit.enabled", "maybe"))
                .hasMessage("ratelimit configuration: ratelimit.enabled must be true or false, was \"maybe\"");
        assertThatThrownBy(() -> settings("ratelimit.mode", "strict"))
                .hasMessage("ratelimit configuration: ratelimit.mode must be enforce, shadow or off, was \"strict\"");
        assertThatThrownBy(() -> settings("ratelimit.store.on-failure", "sometimes"))
                .hasMessage("ratelimit configuration: ratelimit.store.on-failure must be fail, allow or local, "
                        + "was \"sometimes\"");
        assertThatThrownBy(() -> settings("ratelimit.store.timeout-millis", "60001"))
                .hasMessage("ratelimit configuration: ratelimit.store.timeout-millis must be an integer from 1 to 60000, "
                        + "was \"60001\"");
        assertThatThrownBy(() -> settings("ratelimit.global.permit-limit", "10", "ratelimit.global.scope", "global"))
                .hasMessage("ratelimit configuration: ratelimit.global.scope must be TRANSPORT or PRINCIPAL, was \"global\"");
        assertThatThrownBy(() -> settings("ratelimit.global.algorithm", "fixed"))
                .hasMessage("ratelimit configuration: ratelimit.global.algorithm must be SLIDING_WINDOW, STRICT_WINDOW or "
                        + "TOKEN_BUCKET, was \"fixed\"");
    }

    /**
     * A malformed value fails start-up. The global window, name, scope and algorithm are malformed
     * whether or not the global permit limit is set (a deployment that sets it later must not discover then
     * that its window was never valid).
     */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "ratelimit.global.window-seconds | abc",
        "ratelimit.global.window-seconds | 0",
        "ratelimit.global.name           | has space",
        "ratelimit.global.scope          | EVERYWHERE",
        "ratelimit.global.algorithm      | fixed"})
    void malformedGlobalValueFailsStartUpEvenWithoutAGlobalLimit(String key, String value) {
        assertThatThrownBy(() -> settings(key, value))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("\"" + value + "\"");
    }

    // ---------------------------------------------------------------- effective values

    @Test
    void declarationAppliesWhenNothingOverridesIt() {
        assertThat(settings().effective(DEFAULT, null)).isEqualTo(new Effective(DEFAULT, RateLimitMode.ENFORCE));
        assertThat(settings("ratelimit.mode", "shadow").effective(DEFAULT, null))
                .isEqualTo(new Effective(DEFAULT, RateLimitMode.SHADOW));
    }

    @Test
    void limitKeysOverrideTheDeclarationPropertyByProperty() {
        RateLimitSettings settings = settings("ratelimit.limits.default.permit-limit", "10");

        assertThat(settings.effective(DEFAULT, null).policy()).isEqualTo(new RateLimitPolicy("default", 10, 60));

        settings = settings("ratelimit.limits.default.window-seconds", "5",
                "ratelimit.limits.default.algorithm", "token_bucket");

        assertThat(settings.effective(DEFAULT, null).policy())
                .isEqualTo(new RateLimitPolicy("default", 3, 5, RateLimitAlgorithm.TOKEN_BUCKET));
        assertThat(settings.effective(new RateLimitPolicy("other", 3, 60), null).policy())
                .isEqualTo(new RateLimitPolicy("other", 3, 60));
    }

    @Test
    void planKeysOverrideTheLimitKeysWhichOverrideTheDeclaration() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold,silver",
                "ratelimit.limits.default.permit-limit", "5",
                "ratelimit.limits.default.window-seconds", "30",
                "ratelimit.plans.gold.limits.default.permit-limit", "50",
                "ratelimit.plans.silver.limits.default.algorithm", "strict-window");
        Plan gold = settings.plans().get(0);
        Plan silver = settings.plans().get(1);

        assertThat(settings.effective(DEFAULT, null).policy()).isEqualTo(new RateLimitPolicy("default", 5, 30));
        assertThat(settings.effective(DEFAULT, gold).policy()).isEqualTo(new RateLimitPolicy("default", 50, 30));
        assertThat(settings.effective(DEFAULT, silver).policy())
                .isEqualTo(new RateLimitPolicy("default", 5, 30, RateLimitAlgorithm.STRICT_WINDOW));
        assertThat(settings.plan(gold, "default")).isEqualTo(new LimitValues(50, null, null, null));
    }

    @Test
    void planWithoutValuesForALimitGetsTheLimitsOwnValues() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold",
                "ratelimit.limits.default.permit-limit", "5",
                "ratelimit.plans.gold.limits.other.permit-limit", "50");

        assertThat(settings.effective(DEFAULT, settings.plans().get(0)))
                .isEqualTo(new Effective(new RateLimitPolicy("default", 5, 60), RateLimitMode.ENFORCE));
    }

    @Test
    void modeOfThePlanWinsOverTheLimitsWhichWinsOverTheGlobalMode() {
        RateLimitSettings settings = settings(
                "ratelimit.mode", "off",
                "ratelimit.plans", "gold,silver",
                "ratelimit.limits.default.mode", "shadow",
                "ratelimit.plans.gold.limits.default.mode", "enforce");
        Plan gold = settings.plans().get(0);
        Plan silver = settings.plans().get(1);

        assertThat(settings.effective(DEFAULT, gold).mode()).isEqualTo(RateLimitMode.ENFORCE);
        assertThat(settings.effective(DEFAULT, silver).mode()).isEqualTo(RateLimitMode.SHADOW);
        assertThat(settings.effective(DEFAULT, null).mode()).isEqualTo(RateLimitMode.SHADOW);
        assertThat(settings.effective(new RateLimitPolicy("other", 1, 1), gold).mode()).isEqualTo(RateLimitMode.OFF);
    }

    @Test
    void planRoleDefaultsToThePlanName() {
        RateLimitSettings settings = settings("ratelimit.plans", "gold,partner", "ratelimit.plans.partner.role", "b2b");

        assertThat(settings.plans()).extracting(Plan::role).containsExactly("gold", "b2b");
        assertThat(settings.plans()).extracting(Plan::index).containsExactly(1, 2);
    }

    // ---------------------------------------------------------------- limits declared by configuration alone

    @Test
    void limitWithBothPermitLimitAndWindowIsDeclaredByConfiguration() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60",
                "ratelimit.limits.reports.permit-limit", "10",
                "ratelimit.limits.tokens.permit-limit", "1000",
                "ratelimit.limits.tokens.window-seconds", "3600",
                "ratelimit.limits.tokens.algorithm", "token-bucket");

        assertThat(settings.configuredLimits()).containsExactly("items", "tokens");
        assertThat(settings.configuredLimit("items")).isEqualTo(new RateLimitPolicy("items", 50, 60));
        assertThat(settings.configuredLimit("tokens"))
                .isEqualTo(new RateLimitPolicy("tokens", 1000, 3600, RateLimitAlgorithm.TOKEN_BUCKET));
        assertThat(settings.configuredLimit("reports")).isNull();
        assertThat(settings.configuredLimit("nothing")).isNull();
    }

    // ---------------------------------------------------------------- unknown keys

    @Test
    void knownKeysAreNotWarnedAbout() {
        RateLimitSettings settings = settings(
                "ratelimit.enabled", "true",
                "ratelimit.mode", "enforce",
                "ratelimit.partition-header", "X-Api-Key",
                "ratelimit.partition-by", "principal, header, address",
                "ratelimit.trusted-proxies", "10.0.0.0/8",
                "ratelimit.ipv4-prefix", "24",
                "ratelimit.ipv6-prefix", "56",
                "ratelimit.max-tracked-partitions", "10",
                "ratelimit.global.permit-limit", "1000",
                "ratelimit.global.window-seconds", "60",
                "ratelimit.global.name", "application",
                "ratelimit.global.scope", "TRANSPORT",
                "ratelimit.global.algorithm", "SLIDING_WINDOW",
                "ratelimit.plans", "gold",
                "ratelimit.plans.gold.role", "paid",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.limits.default.mode", "shadow",
                "ratelimit.limits.application.permit-limit", "500",
                "ratelimit.store.timeout-millis", "100",
                "ratelimit.store.on-failure", "allow",
                "ratelimit.test.manual-clock", "false",
                "unrelated.key", "x");

        assertThat(settings.unknownKeys(Set.of("default", "application"))).isEmpty();
    }

    @Test
    void aMisspelledKeyIsWarnedAboutNamingIt() {
        RateLimitSettings settings = settings(
                "ratelimit.store.timout-millis", "100",
                "ratelimit.partition-headers", "X-Api-Key",
                "ratelimit.global", "1000");

        assertThat(settings.unknownKeys(Set.of())).containsExactly(
                "ratelimit.global is not a ratelimit setting",
                "ratelimit.partition-headers is not a ratelimit setting",
                "ratelimit.store.timout-millis is not a ratelimit setting");
    }

    @Test
    void everyKeyThatTheCatalogueGivesToAnotherModuleIsNotWarnedAbout() {
        Map<String, String> others = new TreeMap<>();
        for (KeyCatalogue.Key key : ExampleStoreKeys.catalogue().keys()) {
            if (!key.artifact().equals("ratelimit-core")) {
                others.put(key.name(), "any value: not read here");
            }
        }
        assertThat(others).as("the other module's keys").containsOnlyKeys(ExampleStoreKeys.URI,
                ExampleStoreKeys.THREADS, ExampleStoreKeys.TIMEOUT_MILLIS, ExampleStoreKeys.ON_FAILURE);
        others.put(ExampleStoreKeys.TIMEOUT_MILLIS, "100");
        others.put(ExampleStoreKeys.ON_FAILURE, "allow");

        assertThat(withExampleStore(others).unknownKeys(Set.of())).isEmpty();
    }

    @Test
    void aMisspelledKeyOfAnotherModuleIsWarnedAboutNamingIt() {
        RateLimitSettings settings = withExampleStore(
                "ratelimit.example.urii", "example://localhost",
                "ratelimit.example.thread", "4");

        assertThat(settings.unknownKeys(Set.of())).containsExactly(
                "ratelimit.example.thread is not a ratelimit setting",
                "ratelimit.example.urii is not a ratelimit setting");
    }

    @Test
    void aModulesKeyIsNotASettingWhenTheModuleIsAbsent() {
        RateLimitSettings settings = settings(ExampleStoreKeys.URI, "example://localhost",
                "RATELIMIT_EXAMPLE_THREADS", "4");

        assertThat(settings.unknownKeys(Set.of())).containsExactly(
                "the environment variable RATELIMIT_EXAMPLE_THREADS stands for no ratelimit setting (the reference "
                        + "lists the keys it may set, written in capitals with _ for every other character)",
                ExampleStoreKeys.URI + " is not a ratelimit setting");
    }

    @Test
    void limitThatNobodyDeclaresIsWarnedAboutNamingTheKey() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.bursty.permit-limit", "5",
                "ratelimit.limits.burst.permit-limit", "5");

        List<String> warnings = settings.unknownKeys(Set.of("burst"));

        assertThat(warnings).singleElement().asString()
                .contains("ratelimit.limits.bursty.permit-limit")
                .contains("\"bursty\"");
    }

    @Test
    void everyKeyOfAnUndeclaredLimitIsWarnedAboutOnce() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.bursty.permit-limit", "5",
                "ratelimit.limits.bursty.mode", "off");

        assertThat(settings.unknownKeys(Set.of("burst")))
                .hasSize(2)
                .anyMatch(w -> w.startsWith("ratelimit.limits.bursty.permit-limit "))
                .anyMatch(w -> w.startsWith("ratelimit.limits.bursty.mode "));
    }

    @Test
    void limitDeclaredForTheProgrammaticApiIsNotWarnedAbout() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60",
                "ratelimit.limits.items.mode", "shadow");

        assertThat(settings.unknownKeys(Set.of())).isEmpty();
    }

    @Test
    void limitWithOnlyAPermitLimitIsNotDeclaredAndIsWarnedAbout() {
        RateLimitSettings onlyPermits = settings("ratelimit.limits.items.permit-limit", "50");
        RateLimitSettings onlyWindow = settings("ratelimit.limits.items.window-seconds", "60");

        assertThat(onlyPermits.unknownKeys(Set.of())).singleElement().asString()
                .startsWith("ratelimit.limits.items.permit-limit ");
        assertThat(onlyWindow.unknownKeys(Set.of())).singleElement().asString()
                .startsWith("ratelimit.limits.items.window-seconds ");
    }

    @Test
    void misspelledPropertyIsWarnedAboutNamingTheKey() {
        RateLimitSettings settings = settings(
                "ratelimit.limits.burst.permit-limt", "5",
                "ratelimit.partition-heder", "X-Api-Key",
                "ratelimit.global.permit", "10");

        assertThat(settings.unknownKeys(Set.of("burst")))
                .hasSize(3)
                .anyMatch(w -> w.startsWith("ratelimit.limits.burst.permit-limt "))
                .anyMatch(w -> w.startsWith("ratelimit.partition-heder "))
                .anyMatch(w -> w.startsWith("ratelimit.global.permit "));
    }

    @Test
    void planThatIsNotListedIsWarnedAboutNamingTheKey() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold",
                "ratelimit.plans.silver.limits.default.permit-limit", "20",
                "ratelimit.plans.silver.role", "silver");

        assertThat(settings.unknownKeys(Set.of("default")))
                .hasSize(2)
                .anyMatch(w -> w.startsWith("ratelimit.plans.silver.limits.default.permit-limit ") && w.contains("gold"))
                .anyMatch(w -> w.startsWith("ratelimit.plans.silver.role "));
    }

    @Test
    void planKeysWithoutAnyPlanListedAreWarnedAbout() {
        RateLimitSettings settings = settings("ratelimit.plans.gold.limits.default.permit-limit", "20");

        assertThat(settings.unknownKeys(Set.of("default"))).singleElement().asString()
                .startsWith("ratelimit.plans.gold.limits.default.permit-limit ");
    }

    @Test
    void planValuesForALimitNobodyDeclaresAreWarnedAbout() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.defualt.permit-limit", "20",
                "ratelimit.plans.gold.limits.default.permit-limt", "20",
                "ratelimit.plans.gold.rol", "paid");

        assertThat(settings.unknownKeys(Set.of("default")))
                .hasSize(3)
                .anyMatch(w -> w.startsWith("ratelimit.plans.gold.limits.defualt.permit-limit ") && w.contains("\"defualt\""))
                .anyMatch(w -> w.startsWith("ratelimit.plans.gold.limits.default.permit-limt "))
                .anyMatch(w -> w.startsWith("ratelimit.plans.gold.rol "));
    }

    @Test
    void planValuesForALimitDeclaredForTheProgrammaticApiAreNotWarnedAbout() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold",
                "ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60",
                "ratelimit.plans.gold.limits.items.permit-limit", "500");

        assertThat(settings.unknownKeys(Set.of())).isEmpty();
    }

    @Test
    void keysOfAPlanWhoseNameExtendsAnotherPlansNameAreNotWarnedAbout() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold,gold.v2",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.plans.gold.v2.limits.default.permit-limit", "20",
                "ratelimit.plans.gold.v2.role", "gold-v2");

        assertThat(settings.effective(DEFAULT, settings.plans().get(1)).policy().permitLimit()).isEqualTo(20);
        assertThat(settings.unknownKeys(Set.of("default"))).isEmpty();
    }

    @Test
    void anEnvironmentVariableWhoseLimitNameMatchesNoDeclaredLimitIsWarnedAboutNamingIt() {
        RateLimitSettings settings = withExampleStore(
                "RATELIMIT_LIMITS_LISITNG_PERMIT_LIMIT", "5",
                "RATELIMIT_LIMITS_LISTING_PERMIT_LIMIT", "5",
                "RATELIMIT_LIMITS_LOGIN_ADDRESS_FAILURE_STATUSES", "401",
                "RATELIMIT_KEY_SECRET", "a secret of at least sixteen characters",
                "RATELIMIT_STORE_TIMEOUT_MILLIS", "100",
                "RATELIMIT_EXAMPLE_URI", "example://localhost",
                "RATELIMIT_EXAMPLE_TIMEOUT_MILLIS", "100",
                "RATELIMITER_HOME", "not ours: another prefix");

        assertThat(settings.unknownKeys(Set.of("listing", "login-address"))).singleElement().asString()
                .startsWith("the environment variable RATELIMIT_LIMITS_LISITNG_PERMIT_LIMIT names the limit LISITNG ")
                .contains("ratelimit.limits.lisitng.permit-limit", "matches no declared limit", "listing, login-address");
    }

    @Test
    void theDottedSpellingSmallRyeListsBesideAVariableIsNotWarnedAboutTheVariableIs() {
        RateLimitSettings settings = settings(
                "RATELIMIT_STORE_TIMEOUT_MILLIS", "100",
                "ratelimit.store.timeout.millis", "100",
                "RATELIMIT_LIMITS_LISITNG_MODE", "off",
                "ratelimit.limits.lisitng.mode", "off",
                "ratelimit.store.timeout.milis", "100");

        assertThat(settings.unknownKeys(Set.of("listing"))).hasSize(2)
                .anyMatch(w -> w.startsWith("the environment variable RATELIMIT_LIMITS_LISITNG_MODE names the limit LISITNG"))
                .anyMatch(w -> w.startsWith("ratelimit.store.timeout.milis is not a ratelimit setting"));
    }

    @Test
    void anEnvironmentVariableThatStandsForNoKeyIsWarnedAboutNamingIt() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold",
                "RATELIMIT_LIMITS_LISTING_PERMIT_LIMT", "5",
                "RATELIMIT_STORE_TIMOUT_MILLIS", "100",
                "RATELIMIT_PLANS_GOLD_LIMITS_LISTING_PERMIT_LIMIT", "50",
                "RATELIMIT_PLANS_GOLD_ROLE", "paid",
                "RATELIMIT_PLANS_SILVER_ROLE", "silver",
                "RATELIMIT_PLANS_GOLD_LIMITS_LISTNG_MODE", "off");

        assertThat(settings.unknownKeys(Set.of("listing"))).hasSize(4)
                .anyMatch(w -> w.startsWith("the environment variable RATELIMIT_LIMITS_LISTING_PERMIT_LIMT stands for no "))
                .anyMatch(w -> w.startsWith("the environment variable RATELIMIT_STORE_TIMOUT_MILLIS stands for no "))
                .anyMatch(w -> w.startsWith("the environment variable RATELIMIT_PLANS_SILVER_ROLE ") && w.contains("[gold]"))
                .anyMatch(w -> w.startsWith("the environment variable RATELIMIT_PLANS_GOLD_LIMITS_LISTNG_MODE "));
    }

    @Test
    void aLimitNameThatDiffersFromADeclaredOneOnlyInCaseIsWarnedAboutNamingBoth() {
        RateLimitSettings settings = settings(
                "ratelimit.plans", "gold",
                "ratelimit.limits.Login-Address.permit-limit", "500",
                "ratelimit.limits.LOGIN-ADDRESS.permit-limit", "500",
                "ratelimit.limits.LOGIN-ADDRESS.window-seconds", "60",
                "ratelimit.plans.gold.limits.Login-Address.permit-limit", "900",
                "ratelimit.limits.login-address.permit-limit", "6");

        assertThat(settings.unknownKeys(Set.of("login-address"))).hasSize(4)
                .allMatch(w -> w.contains("differs only in case from the declared limit \"login-address\""))
                .anyMatch(w -> w.startsWith("ratelimit.limits.Login-Address.permit-limit "))
                .anyMatch(w -> w.startsWith("ratelimit.limits.LOGIN-ADDRESS.permit-limit ")) // declared whole, all the same
                .anyMatch(w -> w.startsWith("ratelimit.limits.LOGIN-ADDRESS.window-seconds "))
                .anyMatch(w -> w.startsWith("ratelimit.plans.gold.limits.Login-Address.permit-limit "));
    }

    private static RateLimitSettings settings(String... keysAndValues) {
        return RateLimitSettings.of(map(keysAndValues));
    }

    /** Settings with the keys of a store module ({@link ExampleStoreKeys}) besides the core's. */
    private static RateLimitSettings withExampleStore(String... keysAndValues) {
        return withExampleStore(map(keysAndValues));
    }

    private static RateLimitSettings withExampleStore(Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return RateLimitSettings.load(new SettingsSource() {
            @Override
            public Optional<String> value(String key) {
                return Optional.ofNullable(copy.get(key));
            }

            @Override
            public Iterable<String> keys() {
                return copy.keySet();
            }
        }, ExampleStoreKeys.catalogue());
    }

    private static Map<String, String> map(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return values;
    }

    @Test
    void aKeySecretShorterThanSixteenCharactersFailsNamingTheKeyButNeverTheSecret() {
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, "hunter2")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("ratelimit configuration: ratelimit.key-secret must be at least 16 characters, was 7")
                .hasMessageNotContaining("hunter2");
        assertThat(RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, "sixteen chars ok")).keySecret())
                .isEqualTo("sixteen chars ok");
        assertThat(RateLimitSettings.of(Map.of()).keySecret()).isNull();
        assertThat(RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, "sixteen chars ok")).toString())
                .doesNotContain("sixteen chars ok");
    }

    @Test
    void failuresOnlyFailureStatusesAndTheNewPerValuesAreRead() {
        RateLimitSettings settings = RateLimitSettings.of(Map.of("ratelimit.limits.login.failures-only", "TRUE",
                "ratelimit.limits.login.failure-statuses", "401,403", "ratelimit.limits.login.per", "address",
                "ratelimit.limits.account.per", "Argument"));
        assertThat(settings.limit("login").failuresOnly()).isTrue();
        assertThat(settings.limit("login").failureStatuses().toString()).isEqualTo("401,403");
        assertThat(settings.limit("login").per()).isEqualTo(dev.ratelimit.core.RateLimitPer.ADDRESS);
        assertThat(settings.limit("account").per()).isEqualTo(dev.ratelimit.core.RateLimitPer.ARGUMENT);
        assertThat(settings.unknownKeys(java.util.Set.of("login", "account"))).isEmpty();
    }

    @Test
    void malformedFailuresOnlyOrFailureStatusesFailNamingKeyAndValue() {
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of("ratelimit.limits.login.failures-only", "yes")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("ratelimit configuration: ratelimit.limits.login.failures-only must be true or false, was \"yes\"");
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of("ratelimit.limits.login.failure-statuses", "40x")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("ratelimit configuration: ratelimit.limits.login.failure-statuses must be HTTP "
                        + "statuses from 400 to 599").hasMessageContaining("was \"40x\"");
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of("ratelimit.limits.login.per", "account")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("ratelimit configuration: ratelimit.limits.login.per must be caller, application, address "
                        + "or argument, was \"account\"");
    }
}
