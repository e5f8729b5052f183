package dev.ratelimit.core.engine;

import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.RefusalSummary.Refused;
import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.config.LimitsFile;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.live.LimitAdmin.LimitView;
import dev.ratelimit.core.live.LiveValues;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live values and the admin API on the engine (docs/operating-limits.md): the limits file and the base configuration
 * read again, applied from the next request with the counts kept; a bad value, a missing file; the effective limits,
 * one caller's count, a reset and the most refused. No sleeping: {@link LiveValues#refresh} is what the timer calls.
 */
class LiveValuesTest {

    private final ManualClock clock = new ManualClock();
    private final LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet();
    private final Map<String, String> base = new ConcurrentHashMap<>(Map.of("ratelimit.partition-header", "X-Api-Key"));
    private final SettingsSource baseSource = new SettingsSource() {
        @Override
        public Optional<String> value(String key) {
            return Optional.ofNullable(base.get(key));
        }

        @Override
        public Iterable<String> keys() {
            return List.copyOf(base.keySet());
        }
    };
    @TempDir
    Path dir;
    private Path file;
    private RateLimitEngine engine;
    private LiveValues live;
    private LiveValues.Startup startup;
    private BoundLimits todos;

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    private void start(String... fileLines) throws IOException {
        file = dir.resolve("limits.properties");
        if (fileLines.length > 0) {
            write(fileLines);
        }
        startup = LiveValues.startup(baseSource, file);
        engine = RateLimitEngine.builder(RateLimitSettings.load(startup.source()), new InProcessRateLimitStore(10_000, clock))
                .clock(clock).refreshing(true).build();
        todos = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 3, 60))).transport();
        live = new LiveValues(engine.binder(), startup, baseSource, file);
    }

    private void write(String... lines) throws IOException {
        Path next = dir.resolve("limits.next");
        Files.writeString(next, String.join("\n", lines) + "\n");
        Files.move(next, dir.resolve("limits.properties"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE); // as a ConfigMap's volume swaps its files
    }

    private RateLimitDecision get(String key) {
        return decideNow(engine, engine.ledger("X-Api-Key:" + key), todos);
    }

    @Test
    void aRaisedPermitLimitInTheFileAppliesFromTheNextRequestAndKeepsTheCount() throws IOException {
        start();
        for (int i = 0; i < 3; i++) {
            assertThat(get("k").allowed()).isTrue();
        }
        assertThat(get("k").allowed()).isFalse();

        write("ratelimit.limits.default.permit-limit=5");
        assertThat(live.refresh()).isEqualTo(1);

        RateLimitDecision next = get("k");
        assertThat(next.allowed()).isTrue();
        assertThat(next.outcome(0).policy().permitLimit()).isEqualTo(5);
        assertThat(next.outcome(0).remaining()).isEqualTo(1);
        assertThat(log.messages(Level.INFO, "ratelimit.limits.default.permit-limit: (unset) -> 5")).hasSize(1);
        assertThat(live.refresh()).isZero(); // nothing changed: nothing logged again
        assertThat(log.messages(Level.INFO, "ratelimit.limits.default.permit-limit")).hasSize(1);
    }

    @Test
    void aValueThatFailsValidationKeepsThePreviousOneWithOneWarningNamingTheKeyAndTheValue() throws IOException {
        start("ratelimit.limits.default.permit-limit=5");
        write("ratelimit.limits.default.permit-limit=abc", "ratelimit.limits.default.window-seconds=30");

        assertThat(live.refresh()).isEqualTo(1); // the window applies, the typo does not
        assertThat(live.refresh()).isZero();

        assertThat(log.messages(Level.WARNING, "ratelimit.limits.default.permit-limit=abc")).hasSize(1);
        RateLimitDecision next = get("k");
        assertThat(next.outcome(0).policy().permitLimit()).isEqualTo(5);
        assertThat(next.outcome(0).policy().windowSeconds()).isEqualTo(30);
    }

    @Test
    void aMissingFileIsAWarningAndTheLastGoodValuesStay() throws IOException {
        start("ratelimit.limits.default.permit-limit=5");
        Files.delete(file);

        assertThat(live.refresh()).isZero();
        assertThat(live.refresh()).isZero();

        assertThat(log.messages(Level.WARNING, "is missing or cannot be read")).hasSize(1);
        assertThat(get("k").outcome(0).policy().permitLimit()).isEqualTo(5);
    }

    @Test
    void aFileMissingAtStartUpIsAWarningAndIsReadOnceItAppears() throws IOException {
        start();
        assertThat(log.messages(Level.WARNING, "cannot be read")).hasSize(1);
        write("ratelimit.limits.default.permit-limit=4");
        assertThat(live.refresh()).isEqualTo(1);
        assertThat(get("k").outcome(0).policy().permitLimit()).isEqualTo(4);
    }

    @Test
    void theFilesValuesTakePrecedenceOverTheBaseConfigurationWhichIsReadAgainToo() throws IOException {
        base.put("ratelimit.limits.default.permit-limit", "7");
        start("ratelimit.limits.default.permit-limit=5");
        assertThat(get("k").outcome(0).policy().permitLimit()).isEqualTo(5);

        base.put("ratelimit.limits.default.window-seconds", "120");
        assertThat(live.refresh()).isEqualTo(1);
        assertThat(get("k2").outcome(0).policy().windowSeconds()).isEqualTo(120);
        assertThat(get("k2").outcome(0).policy().permitLimit()).isEqualTo(5);
    }

    @Test
    void aChangedWindowOrAlgorithmStartsTheLimitsCountsAfreshAndIsLogged() throws IOException {
        start();
        get("k");
        get("k");
        write("ratelimit.limits.default.algorithm=TOKEN_BUCKET");
        live.refresh();

        RateLimitDecision afresh = get("k");
        assertThat(afresh.outcome(0).policy().algorithm()).isEqualTo(RateLimitAlgorithm.TOKEN_BUCKET);
        assertThat(afresh.outcome(0).remaining()).isEqualTo(2);
        assertThat(log.messages(Level.INFO, "its counts start afresh")).singleElement().asString()
                .contains("\"default\"", "TOKEN_BUCKET");
    }

    @Test
    void aRequestDecidesInTheConfigurationItReadWhenItBegan() throws IOException {
        start();
        RequestLedger begun = engine.ledger("X-Api-Key:k");
        write("ratelimit.limits.default.permit-limit=9");
        live.refresh();

        assertThat(decideNow(engine, begun, todos).outcome(0).policy().permitLimit()).isEqualTo(3);
        assertThat(get("k").outcome(0).policy().permitLimit()).isEqualTo(9);
    }

    @Test
    void theGlobalLimitCanBeSetChangedAndRemovedWhileTheApplicationRuns() throws IOException {
        start();
        assertThat(get("k").size()).isEqualTo(1);

        write("ratelimit.global.permit-limit=2");
        live.refresh();
        RateLimitDecision both = get("g");
        assertThat(both.size()).isEqualTo(2);
        assertThat(both.outcome(0).policy().name()).isEqualTo("application");
        assertThat(get("g").allowed()).isTrue();
        assertThat(get("g").refused()).extracting(o -> o.policy().name()).containsExactly("application");

        write("ratelimit.global.permit-limit=5");
        live.refresh();
        assertThat(get("g").outcome(0).remaining()).isEqualTo(2); // its count kept: 2 spent before, now 3 of 5

        Files.writeString(file, "\n");
        live.refresh();
        assertThat(get("k").size()).isEqualTo(1);
    }

    @Test
    void aLimitOffAtStartUpCanBeSwitchedOnAndAModeChangeApplies() throws IOException {
        start("ratelimit.limits.default.mode=off");
        assertThat(get("k")).isNull();

        write("ratelimit.limits.default.mode=shadow");
        live.refresh();
        assertThat(get("k").request().kind(0)).isEqualTo(dev.ratelimit.core.RateLimitRequest.Kind.SHADOW);

        write("ratelimit.mode=off");
        live.refresh();
        assertThat(get("k")).isNull();
    }

    @Test
    void aKeyThatIsNotLiveIsIgnoredWithAWarningAtStartUpAndOncePerChangeOfTheFile() throws IOException {
        start("ratelimit.partition-header=X-Other", "ratelimit.redis.uri=redis://elsewhere:6379");
        assertThat(startup.warnings()).as("for the start-up log").hasSize(2)
                .allMatch(w -> w.startsWith("ratelimit: the limits file " + file + " (ratelimit.limits-file) sets "))
                .anyMatch(w -> w.contains(" sets ratelimit.partition-header, which the limits file does not read"))
                .anyMatch(w -> w.contains(" sets ratelimit.redis.uri, which the limits file does not read"));
        assertThat(live.refresh()).isZero();
        assertThat(log.messages(Level.WARNING, "which the limits file does not read")).as("the file did not change")
                .isEmpty();

        write("ratelimit.partition-header=X-Other", "ratelimit.limits.default.permit-limit=4");
        live.refresh();
        live.refresh();
        assertThat(log.messages(Level.WARNING, "sets ratelimit.partition-header, which the limits file does not read"))
                .hasSize(1);
        assertThat(engine.liveSettings().partitionHeader()).isEqualTo("X-Api-Key");

        write("ratelimit.partition-header=X-Other", "ratelimit.limits.default.permit-limit=5");
        live.refresh();
        assertThat(log.messages(Level.WARNING, "sets ratelimit.partition-header, which the limits file does not read"))
                .as("the file changed: said again").hasSize(2);
    }

    @Test
    void valuesFromTheFileAreLoggedWithTheirControlCharactersEscaped() throws IOException {
        start();
        write("ratelimit.limits.default.permit-limit=abc\\nWARNING: forged", "ratelimit.limits.x\\ny.mode=off");
        live.refresh();
        assertThat(log.messages(Level.WARNING, "ratelimit.limits.default.permit-limit=abc\\nWARNING: forged is not applied"))
                .hasSize(1);
        assertThat(log.records()).extracting(java.util.logging.LogRecord::getMessage)
                .noneMatch(line -> line.contains("\n") || line.contains("\r"));
    }

    @Test
    void plansCanBeAddedWhileTheApplicationRuns() throws IOException {
        start();
        write("ratelimit.plans=gold", "ratelimit.plans.gold.limits.default.permit-limit=10");
        live.refresh();
        RequestLedger gold = engine.ledger(TestCaller.user("bob", "gold"), null);
        assertThat(decideNow(engine, gold, todos).outcome(0).policy().permitLimit()).isEqualTo(10);
        assertThat(engine.admin().limits()).filteredOn(l -> l.name().equals("default")).singleElement()
                .satisfies(l -> assertThat(l.plans()).containsOnlyKeys("gold"));
    }

    // ---------------------------------------------------------------- the admin API

    @Test
    void theEffectiveLimitsNameTheirValuesModesPlansAndWhereTheyAreDeclared() throws IOException {
        start("ratelimit.limits.default.permit-limit=4", "ratelimit.limits.items.permit-limit=50",
                "ratelimit.limits.items.window-seconds=60");
        List<LimitView> limits = engine.admin().limits();
        assertThat(limits).extracting(LimitView::name).containsExactly("default", "items");
        LimitView view = limits.get(0);
        assertThat(view.permitLimit()).isEqualTo(4);
        assertThat(view.windowSeconds()).isEqualTo(60);
        assertThat(view.algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_WINDOW);
        assertThat(view.mode()).isEqualTo(RateLimitMode.ENFORCE);
        assertThat(view.declaredOn()).containsExactly("TodoResource.all()");
        assertThat(limits.get(1).declaredOn()).containsExactly("configuration (ratelimit.limits.items.*)");
    }

    @Test
    void oneCallersCountIsReadWithoutSpendingAndResetGivesEveryPermitBack() throws IOException {
        start();
        for (int i = 0; i < 4; i++) {
            get("K");
        }
        CountState state = engine.admin().count("default", "X-Api-Key:K", null).toCompletableFuture().join();
        assertThat(state.remaining()).isZero();
        assertThat(state.resetNanos()).isEqualTo(60_000_000_000L);
        assertThat(engine.admin().count("default", "X-Api-Key:K", null).toCompletableFuture().join()).isEqualTo(state);

        engine.admin().reset("default", "X-Api-Key:K", null, "ops").toCompletableFuture().join();

        assertThat(get("K").outcome(0).remaining()).isEqualTo(2);
        assertThat(log.messages(Level.INFO, "for the partition \"X-Api-Key:K\" was started afresh, asked by ops"))
                .hasSize(1);
    }

    @Test
    void theMostRefusedPartitionsComeFromRefusalsOnly() throws IOException {
        start();
        for (int i = 0; i < 8; i++) {
            get("K2");
        }
        for (int i = 0; i < 4; i++) {
            get("K3");
        }
        assertThat(engine.admin().refused("default", 3)).containsExactly(new Refused("X-Api-Key:K2", 5, 0),
                new Refused("X-Api-Key:K3", 1, 0));
    }

    @Test
    void anUnknownLimitOrPlanIsAnIllegalArgumentNamingIt() throws IOException {
        start();
        assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().count("nope", "anonymous", null))
                .withMessageContaining("\"nope\"");
        assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().refused("nope", 3))
                .withMessageContaining("\"nope\"");
        assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().reset("default", "anonymous", "tin", "ops"))
                .withMessageContaining("\"tin\"");
    }

    /**
     * The reference's "live" column (docs/configuration.md, generated from {@link KeyCatalogue}) against what live
     * values really do: every key it marks live, changed in the configuration read again, is applied; every other key,
     * changed, is not; and the limits file reads exactly the keys marked live.
     */
    @Test
    void theKeysReadAgainAreThoseTheReferenceMarksLive() throws IOException {
        base.put("ratelimit.plans", "gold");
        start();
        Map<String, String> samples = Map.ofEntries(Map.entry("mode", "shadow"), Map.entry("permit-limit", "7"),
                Map.entry("window-seconds", "30"), Map.entry("algorithm", "TOKEN_BUCKET"),
                Map.entry("max-wait-millis", "0"), Map.entry("per", "caller"), Map.entry("failures-only", "false"),
                Map.entry("failure-statuses", "401"), Map.entry("slices", "true"), Map.entry("role", "golden"), Map.entry("ratelimit.plans", "gold,silver"));
        for (KeyCatalogue.Key catalogued : KeyCatalogue.installed().keys()) {
            String key = catalogued.name().replace("<name>", "default").replace("<plan>", "gold");
            assertThat(LimitsFile.isLive(key)).as("the limits file reads %s: the reference says live=%s", key,
                    catalogued.live()).isEqualTo(catalogued.live());
            String property = key.substring(key.lastIndexOf('.') + 1);
            String sample = samples.getOrDefault(key, samples.get(property));
            if (sample == null) {
                assertThat(catalogued.live()).as("a sample value for the live key %s", key).isFalse();
                sample = catalogued.defaultValue() != null ? catalogued.defaultValue() + "1" : "1";
            }
            String before = base.put(key, sample);
            int applied = live.refresh();
            assertThat(applied).as("%s=%s changed while running: the reference says live=%s", key, sample,
                    catalogued.live()).isEqualTo(catalogued.live() ? 1 : 0);
            if (before == null) {
                base.remove(key);
            } else {
                base.put(key, before);
            }
            live.refresh();
        }
    }
}
