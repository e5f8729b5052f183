package dev.ratelimit.core.engine;

import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.ScopedLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.core.live.LiveValues;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log-in protection of docs/login-protection.md as an attacker tries it, on the engine with the in-process store:
 * a plan claimed in a bearer header gets no fresh count per address or per account ("Plans do not split these
 * counts"), a plan's values for such a limit fail start-up (and are refused live), and a flood of made-up partitions
 * on another limit does not leave the log-in limit without room.
 */
class LoginUnderAttackTest {

    private final ManualClock clock = new ManualClock();
    private final LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet();
    private final RecordingMetrics metrics = new RecordingMetrics();

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    private RateLimitEngine engine(InProcessRateLimitStore store, RateLimitSettings settings) {
        return RateLimitEngine.builder(settings, store).clock(clock).metrics(metrics).build();
    }

    private static LimitDeclaration.Builder declared(String name, int permitLimit, int windowSeconds) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name(name).permitLimit(permitLimit)
                .windowSeconds(windowSeconds);
    }

    /** The example's POST /login: 5 failures per address (900 s), 10 per account (3600 s), the username the key. */
    private static ResolvedLimits login() {
        return LimitResolver.resolve(null, MethodDeclarations.resourceMethod("LoginResource.login(String, String)",
                List.of(), List.of(), List.of(
                        declared("login-address", 5, 900).per(RateLimitPer.ADDRESS).failuresOnly(true)
                                .algorithm(RateLimitAlgorithm.STRICT_WINDOW).build(),
                        declared("login-account", 10, 3600).per(RateLimitPer.ARGUMENT).failuresOnly(true).build()))
                .withKeys(List.of(new KeyParameter(0, "java.lang.String", false, false)), true));
    }

    /** The example's GET /todos: 3 a minute per caller ({@code X-Api-Key} when anonymous), 10 for the plan gold. */
    private static ResolvedLimits todos() {
        return LimitResolver.resolve(null, MethodDeclarations.resourceMethod("TodoResource.all()", List.of(), List.of(),
                List.of(declared("default", 3, 60).build())));
    }

    private static RateLimitSettings withGold(String... more) {
        String[] all = new String[more.length + 4];
        all[0] = "ratelimit.plans";
        all[1] = "gold";
        all[2] = "ratelimit.partition-header";
        all[3] = "X-Api-Key";
        System.arraycopy(more, 0, all, 4, more.length);
        return settings(all);
    }

    /** A wrong password for {@code username} from {@code caller}: both parts decided, the response a 401. */
    private static RateLimitDecision wrongPassword(RateLimitEngine engine, ScopedLimits login, BoundLimits account,
                                                   RateLimitCaller caller, String username) {
        RequestLedger ledger = engine.ledger(caller, null);
        RateLimitDecision decision = decideNow(engine, ledger, login.transport());
        if (decision.allowed()) {
            decision = DecisionStages.join(engine.decide(ledger, account, 1, username));
        }
        engine.settle(ledger, decision.allowed() ? 401 : 429);
        return decision;
    }

    @Test
    void aBearerHeaderClaimingAPlanGetsNoFreshCountPerAddressNorPerAccount() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(10_000, clock), withGold());
        ScopedLimits login = engine.binder().bindResourceMethod(login());
        BoundLimits account = engine.binder().bindAtInvocation(login());

        for (int i = 0; i < 5; i++) {
            assertThat(wrongPassword(engine, login, account, caller("127.0.7.1", null), "alice").allowed())
                    .as("failure %d without a plan", i + 1).isTrue();
        }
        RateLimitDecision sixth = wrongPassword(engine, login, account, caller("127.0.7.1", "mallory"), "alice");
        RateLimitDecision seventh = wrongPassword(engine, login, account, caller("127.0.7.1", "mallory"), "alice");

        assertThat(sixth.allowed()).as("the 6th, claiming the plan gold").isFalse();
        assertThat(sixth.refused()).extracting(o -> o.policy().name()).containsExactly("login-address");
        assertThat(seventh.allowed()).as("the 7th, claiming the plan gold").isFalse();
        // the account's count: 5 failures from 127.0.7.1, then 5 from 127.0.7.2 in the plan: the 11th is refused
        for (int i = 0; i < 5; i++) {
            assertThat(wrongPassword(engine, login, account, caller("127.0.7.2", "mallory"), "alice").allowed())
                    .as("account failure %d, in the plan", 6 + i).isTrue();
        }
        RateLimitDecision eleventh = wrongPassword(engine, login, account, caller("127.0.7.3", "mallory"), "alice");
        assertThat(eleventh.allowed()).as("the account's 11th failure, in the plan").isFalse();
        assertThat(eleventh.refused()).extracting(o -> o.policy().name()).containsExactly("login-account");
        assertThat(metrics.count("login-address", "refused", "none")).as("one series: the count is shared").isEqualTo(2);
        assertThat(metrics.count("login-address", "refused", "gold")).isZero();
    }

    @Test
    void aPlanStillSplitsAPerCallerCountAndTheHeadersOfAnAddressLimitShowTheSharedCount() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(10_000, clock),
                withGold("ratelimit.plans.gold.limits.default.permit-limit", "10"));
        BoundLimits todos = engine.binder().bindResourceMethod(todos()).transport();
        ScopedLimits login = engine.binder().bindResourceMethod(login());
        BoundLimits account = engine.binder().bindAtInvocation(login());

        RequestLedger gold = engine.ledger(caller("127.0.7.9", "bob"), null);
        decideNow(engine, gold, todos);
        assertThat(headers(gold).get(RateLimitHeaders.RATELIMIT)).isEqualTo("\"default\";r=9;t=60");
        wrongPassword(engine, login, account, caller("127.0.7.9", null), "bob");
        RequestLedger again = engine.ledger(caller("127.0.7.9", "bob"), null);
        decideNow(engine, again, login.transport());
        assertThat(headers(again).get(RateLimitHeaders.RATELIMIT)).as("the plan's caller sees the address's count")
                .startsWith("\"login-address\";r=3");
    }

    @Test
    void theAdminFindsTheSharedCountOfAnAddressWithOrWithoutAPlan() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(10_000, clock), withGold());
        ScopedLimits login = engine.binder().bindResourceMethod(login());
        BoundLimits account = engine.binder().bindAtInvocation(login());
        wrongPassword(engine, login, account, caller("127.0.7.6", "mallory"), "erin");
        wrongPassword(engine, login, account, caller("127.0.7.6", null), "erin");

        assertThat(engine.admin().count("login-address", "addr:127.0.7.6", null).toCompletableFuture().join()
                .remaining()).isEqualTo(3);
        assertThat(engine.admin().count("login-address", "addr:127.0.7.6", "gold").toCompletableFuture().join()
                .remaining()).as("?plan=gold: the same count").isEqualTo(3);
        engine.admin().reset("login-address", "addr:127.0.7.6", "gold", "ops").toCompletableFuture().join();
        assertThat(engine.admin().count("login-address", "addr:127.0.7.6", null).toCompletableFuture().join()
                .remaining()).as("reset with ?plan=gold").isEqualTo(5);
    }

    @Test
    void aPlansValueForALimitPerAddressFailsStartUpNamingTheKey() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(10_000, clock),
                withGold("ratelimit.plans.gold.limits.login-address.permit-limit", "10"));

        assertThatThrownBy(() -> engine.binder().bindResourceMethod(login()))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.plans.gold.limits.login-address.permit-limit=10")
                .hasMessageContaining("\"login-address\" counts per address");
    }

    @Test
    void aPlansModeForALimitPerArgumentFailsStartUpNamingTheKey() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(10_000, clock),
                withGold("ratelimit.plans.gold.limits.login-account.mode", "off"));

        assertThatThrownBy(() -> engine.binder().bindAtInvocation(login()))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.plans.gold.limits.login-account.mode=off")
                .hasMessageContaining("\"login-account\" counts per argument");
    }

    @Test
    void aPlansValueForALimitMadePerAddressByConfigurationFailsStartUpNamingTheKey() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(10_000, clock),
                withGold("ratelimit.limits.default.per", "address",
                        "ratelimit.plans.gold.limits.default.window-seconds", "1"));

        assertThatThrownBy(() -> engine.binder().bindResourceMethod(todos()))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.plans.gold.limits.default.window-seconds=1")
                .hasMessageContaining("ratelimit.limits.default.per");
    }

    @Test
    void aPlansValueForALimitPerAddressInTheLimitsFileIsRefusedWithAWarningAndThePreviousValuesStay(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("limits.properties");
        Files.writeString(file, "ratelimit.plans=gold\n");
        Map<String, String> base = Map.of("ratelimit.partition-header", "X-Api-Key");
        SettingsSource baseSource = new SettingsSource() {
            @Override
            public Optional<String> value(String key) {
                return Optional.ofNullable(base.get(key));
            }

            @Override
            public Iterable<String> keys() {
                return base.keySet();
            }
        };
        LiveValues.Startup startup = LiveValues.startup(baseSource, file);
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.load(startup.source()),
                new InProcessRateLimitStore(10_000, clock)).clock(clock).refreshing(true).build();
        ScopedLimits login = engine.binder().bindResourceMethod(login());
        BoundLimits account = engine.binder().bindAtInvocation(login());
        LiveValues live = new LiveValues(engine.binder(), startup, baseSource, file);

        Files.writeString(file, "ratelimit.plans=gold\nratelimit.plans.gold.limits.login-address.permit-limit=50\n");
        assertThat(live.refresh()).isZero();

        assertThat(log.messages(Level.WARNING, "ratelimit.plans.gold.limits.login-address.permit-limit=50 is not applied"))
                .hasSize(1);
        for (int i = 0; i < 5; i++) {
            wrongPassword(engine, login, account, caller("127.0.7.4", "mallory"), "carol");
        }
        RateLimitDecision sixth = wrongPassword(engine, login, account, caller("127.0.7.4", "mallory"), "carol");
        assertThat(sixth.allowed()).as("5 a window still, in the plan too").isFalse();
        assertThat(sixth.refused().get(0).policy().permitLimit()).isEqualTo(5);
    }

    @Test
    void aFloodOfMadeUpKeysOnAnotherLimitLeavesTheLogInLimitRoomToCount() {
        // a small table: 200 counts; the flood makes 300 partitions of "default", one new X-Api-Key each
        RateLimitEngine engine = engine(new InProcessRateLimitStore(200, clock), withGold());
        BoundLimits todos = engine.binder().bindResourceMethod(todos()).transport();
        ScopedLimits login = engine.binder().bindResourceMethod(login());
        BoundLimits account = engine.binder().bindAtInvocation(login());
        int uncounted = 0;
        for (int i = 0; i < 300; i++) {
            RequestLedger ledger = engine.ledger(TestCaller.withHeader("X-Api-Key", "flood-" + i), null);
            RateLimitDecision d = decideNow(engine, ledger, todos);
            assertThat(d.allowed()).isTrue();
            uncounted += d.outcome(0).spent() ? 0 : 1;
        }
        assertThat(uncounted).as("the flood filled what \"default\" may hold, then went uncounted").isPositive();

        for (int i = 0; i < 5; i++) {
            assertThat(wrongPassword(engine, login, account, caller("127.0.7.5", null), "dave").allowed())
                    .as("failure %d", i + 1).isTrue();
        }
        RateLimitDecision sixth = wrongPassword(engine, login, account, caller("127.0.7.5", null), "dave");

        assertThat(sixth.allowed()).as("the 6th wrong password from a fresh address after the flood").isFalse();
        assertThat(sixth.refused()).extracting(o -> o.policy().name()).containsExactly("login-address");
    }

    private static Map<String, String> headers(RequestLedger ledger) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.write(ledger, headers::put);
        return headers;
    }

    /** A caller from {@code address}: anonymous, or {@code name} in the role gold (a bearer {@code <name>:gold}). */
    private static RateLimitCaller caller(String address, String name) {
        return new RateLimitCaller() {
            @Override
            public Principal principal() {
                return name == null ? null : () -> name;
            }

            @Override
            public String header(String header) {
                return null;
            }

            @Override
            public boolean isUserInRole(String role) {
                return name != null && role.equals("gold");
            }

            @Override
            public InetAddress clientAddress() {
                try {
                    return InetAddress.getByName(address);
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }
}
