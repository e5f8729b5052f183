package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.testing.ManyInstances.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * One count shared by two application instances through a store that counts across instances (two engines, each on a
 * store of its own, as two JVMs would have), where the instances race each other and where each computes the count's
 * partition itself: the same scenarios for every such store. Its tests give each instance's store, and how long the
 * store may take to answer.
 */
public final class TwoInstances {

    private static final String SECRET = "a secret both instances share";

    private final IntFunction<RateLimitStore> stores;
    private final Duration timeout;

    /**
     * @param stores  a new store of instance {@code i} (0 or 1) on the shared back end, each time it is called
     * @param timeout how long the store may take to answer: a loaded machine must not fall back to the policy
     */
    public TwoInstances(IntFunction<RateLimitStore> stores, Duration timeout) {
        this.stores = stores;
        this.timeout = timeout;
    }

    /**
     * Give-backs racing acquires leave exactly what was admitted and not given back, and never admit more than the
     * limit at once: 16 threads over both instances, each deciding {@code calls} requests and holding up to 3 permits, more
     * than twice the limit asked for, so that acquires are refused while give-backs of both instances land.
     *
     * @param raceSeconds    how long the race may take
     * @param releaseSeconds how long the give-backs may take to reach each store once the race is over
     */
    public void giveBacksRacingAcquiresLeaveExactlyTheAdmittedNotGivenBack(int calls, long raceSeconds,
                                                                          long releaseSeconds) throws Exception {
        TrackedStore storeA = new TrackedStore(stores.apply(0));
        TrackedStore storeB = new TrackedStore(stores.apply(1));
        // every request asks the store (no refusal answered at home): give-backs race acquires in the store itself
        RateLimitEngine a = engine(storeA, "0");
        RateLimitEngine b = engine(storeB, "0");
        LimitDeclaration twenty = limit("raced", 20, 3600); // an hour: nothing returns by itself meanwhile
        BoundLimits onA = a.binder().bind(beanMethod("TodoResource.all()", twenty));
        BoundLimits onB = b.binder().bind(beanMethod("TodoResource.all()", twenty));

        Race race = ManyInstances.givingBackWhileAcquiring(List.of(a, b), List.of(onA, onB), "race", 16, calls, 2,
                raceSeconds);
        storeA.awaitReleases(releaseSeconds);
        storeB.awaitReleases(releaseSeconds);

        assertThat(race.givenBack()).as("give-backs raced the acquires: %s", race).isGreaterThan(100);
        assertThat(race.refused()).as("acquires were refused meanwhile: %s", race).isGreaterThan(0);
        assertThat(race.mostHeld()).as("admitted and not given back, at any time: %s", race).isLessThanOrEqualTo(20);
        assertThat(remaining(a, "raced", "race")).as("the count after the race: 20 - (admitted - given back), %s", race)
                .isEqualTo(20 - race.held());
        assertThat(remaining(b, "raced", "race")).as("the same count, read through the other instance")
                .isEqualTo(20 - race.held());
    }

    /**
     * A limit per argument counts one username as one count through either instance, when both have the same
     * {@code ratelimit.key-secret} (docs/login-protection.md): its failures spread over both, spelled as people type.
     */
    public void aLimitPerArgumentCountsOneUsernameOnceThroughBothInstances() {
        RateLimitEngine a = engine(stores.apply(0), "5000");
        RateLimitEngine b = engine(stores.apply(1), "5000");
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

    /** An instance's engine, refusals answered at home for as long as given. */
    private RateLimitEngine engine(RateLimitStore store, String refusalMemoryMillis) {
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of(
                "ratelimit.store.timeout-millis", Long.toString(timeout.toMillis()), "ratelimit.key-secret", SECRET,
                "ratelimit.store.refusal-memory-millis", refusalMemoryMillis)), store).build();
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

    private int remaining(RateLimitEngine engine, String name, String partition) throws Exception {
        return engine.admin().count(name, partition, null).toCompletableFuture()
                .get(timeout.toSeconds(), TimeUnit.SECONDS).remaining();
    }
}
