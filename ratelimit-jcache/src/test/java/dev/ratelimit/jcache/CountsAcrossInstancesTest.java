package dev.ratelimit.jcache;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.testing.ManyInstances;
import dev.ratelimit.core.testing.ManyInstances.Race;
import dev.ratelimit.core.testing.TrackedStore;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One count shared by two application instances on two real Hazelcast members (each with an engine on a store and
 * cache manager of its own, as two JVMs would have), in both ways the store changes a count (an entry processor, or
 * compare-and-set): give-backs racing acquires leave exactly what was admitted and not given back, and never admit
 * more than the limit at once; a limit per argument counts one username as one count through either instance, when
 * both have the same {@code ratelimit.key-secret} (docs/login-protection.md).
 */
class CountsAcrossInstancesTest {

    private static final String SECRET = "a secret both instances share";
    private static HazelcastMembers cluster;

    private final List<JCacheRateLimitStore> stores = new ArrayList<>();
    private final List<CacheManager> managers = new ArrayList<>();
    private final String cache = "counts-" + UUID.randomUUID();

    @BeforeAll
    static void start() {
        cluster = HazelcastMembers.start(2);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @AfterEach
    void close() {
        stores.forEach(JCacheRateLimitStore::close);
        managers.forEach(CacheManager::close);
    }

    @ParameterizedTest
    @EnumSource(value = JCacheRateLimitStore.Mode.class, names = {"PROCESSOR", "COMPARE_AND_SET"})
    void giveBacksRacingAcquiresOnTwoInstancesLeaveExactlyTheAdmittedNotGivenBackAndNeverAdmitOverTheLimit(
            JCacheRateLimitStore.Mode mode) throws Exception {
        TrackedStore storeA = store(0, mode);
        TrackedStore storeB = store(1, mode);
        // every request asks the store (no refusal answered at home): give-backs race acquires in the store itself
        RateLimitEngine a = engine(storeA, "0");
        RateLimitEngine b = engine(storeB, "0");
        LimitDeclaration twenty = limit("raced", 20, 3600); // an hour: nothing returns by itself meanwhile
        BoundLimits onA = a.binder().bind(beanMethod("TodoResource.all()", twenty));
        BoundLimits onB = b.binder().bind(beanMethod("TodoResource.all()", twenty));

        // 16 threads holding up to 3 permits each: more than twice the limit asked for, so acquires are refused while
        // give-backs of both instances land
        Race race = ManyInstances.givingBackWhileAcquiring(List.of(a, b), List.of(onA, onB), "race", 16, 40, 2, 180);
        storeA.awaitReleases(60);
        storeB.awaitReleases(60);

        assertThat(race.givenBack()).as("give-backs raced the acquires: %s", race).isGreaterThan(100);
        assertThat(race.refused()).as("acquires were refused meanwhile: %s", race).isGreaterThan(0);
        assertThat(race.mostHeld()).as("admitted and not given back, at any time: %s", race).isLessThanOrEqualTo(20);
        assertThat(remaining(a, "raced", "race")).as("the count after the race: 20 - (admitted - given back), %s", race)
                .isEqualTo(20 - race.held());
        assertThat(remaining(b, "raced", "race")).as("the same count, read through the other instance")
                .isEqualTo(20 - race.held());
    }

    @ParameterizedTest
    @EnumSource(value = JCacheRateLimitStore.Mode.class, names = {"PROCESSOR", "COMPARE_AND_SET"})
    void aLimitPerArgumentCountsOneUsernameOnceThroughBothInstances(JCacheRateLimitStore.Mode mode) throws Exception {
        RateLimitEngine a = engine(store(0, mode), "5000");
        RateLimitEngine b = engine(store(1, mode), "5000");
        LimitDeclaration account = LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name("login-account")
                .permitLimit(10).windowSeconds(3600).per(RateLimitPer.ARGUMENT).failuresOnly(true).build();
        BoundLimits onA = a.binder().bindAtInvocation(login(account));
        BoundLimits onB = b.binder().bindAtInvocation(login(account));
        String username = "erin-" + UUID.randomUUID();

        for (int i = 0; i < 10; i++) { // wrong passwords, one instance after the other; spelled as people type
            boolean onFirst = i % 2 == 0;
            String typed = i % 3 == 0 ? " " + username.toUpperCase() : username;
            assertThat(failedLogin(onFirst ? a : b, onFirst ? onA : onB, typed)).as("failure %d of 10", i + 1).isTrue();
        }

        assertThat(failedLogin(a, onA, username)).as("the 11th, on one instance").isFalse();
        assertThat(failedLogin(b, onB, username)).as("the 11th, on the other").isFalse();
        assertThat(a.admin().keyPartition("login-account", username))
                .as("both instances digest the username alike").isEqualTo(b.admin().keyPartition("login-account", username))
                .doesNotContain(username);
        assertThat(failedLogin(b, onB, "someone-else-" + UUID.randomUUID())).as("another username counts apart").isTrue();
    }

    // ------------------------------------------------------------------------------------------------

    /** A store on member {@code i}, through a cache manager of its own: one application instance. */
    private TrackedStore store(int i, JCacheRateLimitStore.Mode mode) {
        CacheManager manager = HazelcastMembers.ownCacheManager(cluster.member(i));
        managers.add(manager);
        JCacheRateLimitStore store = JCacheRateLimitStore.builder(
                JCacheRateLimitStore.openCache(manager, cache, Duration.ofHours(2))).mode(mode).build();
        stores.add(store);
        return new TrackedStore(store);
    }

    /** An instance's engine, refusals answered at home for as long as given: 30 s for the grid to answer (a loaded machine must not fall back to the policy). */
    private static RateLimitEngine engine(TrackedStore store, String refusalMemoryMillis) {
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of("ratelimit.store.timeout-millis", "30000",
                "ratelimit.key-secret", SECRET, "ratelimit.store.refusal-memory-millis", refusalMemoryMillis)), store)
                .build();
    }

    /** {@code Login.login(String)}, a resource method whose first parameter is its {@code @RateLimitKey}. */
    private static ResolvedLimits login(LimitDeclaration declared) {
        return LimitResolver.resolve(null, MethodDeclarations.resourceMethod("Login.login(String)", List.of(), List.of(),
                List.of(declared)).withKeys(List.of(new KeyParameter(0, "java.lang.String", false, false)), true));
    }

    /** A log-in of {@code username} answered 401 when it got in: true when the limit let it in. */
    private static boolean failedLogin(RateLimitEngine engine, BoundLimits limits, String username) {
        RequestLedger ledger = engine.ledger("anonymous");
        RateLimitDecision decision = DecisionStages.join(engine.decide(ledger, limits, 1, username));
        engine.settle(ledger, 401);
        return decision.allowed();
    }

    private static int remaining(RateLimitEngine engine, String name, String partition) throws Exception {
        return engine.admin().count(name, partition, null).toCompletableFuture().get(30, TimeUnit.SECONDS).remaining();
    }
}
