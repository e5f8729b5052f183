package dev.ratelimit.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.logging.LogRecord;

/**
 * A username counted per argument through two instances on one shared store is never written in clear
 * (docs/login-protection.md, "Counting by an argument"): neither in what the store holds or received, nor in any log
 * record, nor in any metric, nor in what the admin API answers; in any case, and not even its first word. The same
 * scenario for every store that counts across instances; its tests give the instances and read the store.
 */
public final class ClearKeyNowhere {

    /** The username, as the first log-in sends it. */
    public static final String USERNAME = "Zebulon-Secret-User";
    /** What must appear nowhere, lower-cased: the value, and a part of it. */
    private static final List<String> CLEAR = List.of("zebulon-secret-user", "zebulon");

    private ClearKeyNowhere() {
    }

    /** What the store under test holds and received. */
    public interface Written {

        /**
         * Waits until the last write of the scenario (a give-back to the count of {@code partition} of the limit
         * {@code login-account}) has reached the store, then returns all the store holds or received, as text.
         */
        List<String> after(String partition) throws Exception;
    }

    /**
     * The settings of each instance: one {@code ratelimit.key-secret}, {@code timeout} for the store to answer, and a
     * second limit on the username in shadow mode.
     */
    public static RateLimitSettings settings(Duration timeout) {
        return RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET, "a-secret-of-the-test-0123456789",
                "ratelimit.store.timeout-millis", Long.toString(timeout.toMillis()),
                "ratelimit.limits.login-account-shadow.mode", "shadow"));
    }

    /**
     * Three wrong passwords spread over both instances, in three spellings of one account, then refusals; the admin
     * API (the count by key, the most refused, a reset); a success that gives its permit back. Then nothing of
     * {@link #USERNAME} in clear anywhere.
     *
     * @param timeout   how long the store may take to answer
     * @param instances the engine of instance {@code i} (0 or 1), with {@link #settings}, on a store of its own
     * @param written   what the store holds and received
     * @param metrics   what the metrics of instance {@code i} recorded, as text: names, tags and values
     * @param logs      the records of the library and of the store's client
     */
    public static void run(Duration timeout, IntFunction<RateLimitEngine> instances, Written written,
                           IntFunction<List<String>> metrics, LogRecords logs) throws Exception {
        long seconds = timeout.toSeconds();
        List<String> seen = new ArrayList<>();
        RateLimitEngine a = instances.apply(0);
        RateLimitEngine b = instances.apply(1);
        BoundLimits onA = a.binder().bind(login());
        BoundLimits onB = b.binder().bind(login());

        // three wrong passwords spread over both instances, in three spellings of one account: then refused
        List<String> spellings = List.of(USERNAME, " zebulon-secret-user", "ZEBULON-SECRET-USER\u00a0");
        for (int i = 0; i < 3; i++) {
            RateLimitDecision allowed = decide(i % 2 == 0 ? a : b, i % 2 == 0 ? onA : onB, spellings.get(i), seconds);
            assertThat(allowed.allowed()).isTrue();
        }
        for (int i = 0; i < 4; i++) {
            RateLimitDecision refused = decide(i % 2 == 0 ? a : b, i % 2 == 0 ? onA : onB, USERNAME, seconds);
            assertThat(refused.allowed()).as("one count for both instances and every spelling").isFalse();
            seen.add(refused.toString());
            seen.add(refused.partition());
        }
        // the admin API: the count by key, the most refused, a reset; then a success gives its permit back
        String partition = a.admin().keyPartition("login-account", USERNAME);
        seen.add(partition);
        seen.add(String.valueOf(a.admin().count("login-account", partition, null).toCompletableFuture()
                .get(seconds, TimeUnit.SECONDS)));
        seen.add(String.valueOf(b.admin().refused("login-account", 10)));
        a.admin().reset("login-account", partition, null, "ops").toCompletableFuture().get(seconds, TimeUnit.SECONDS);
        // the other instance remembered the refusal until the reset's announcement reaches it: it comes asynchronously
        RequestLedger[] ledger = new RequestLedger[1];
        RateLimitDecision[] success = new RateLimitDecision[1];
        Await.until("the reset heard on the other instance", seconds, () -> {
            ledger[0] = b.ledger("anonymous");
            success[0] = b.decide(ledger[0], onB, 1, USERNAME).get(seconds, TimeUnit.SECONDS);
            return success[0].allowed();
        });
        b.succeeded(ledger[0], success[0]);

        seen.addAll(written.after(partition));
        for (LogRecord record : logs.records()) {
            seen.add(record.getLoggerName() + " " + record.getMessage() + " " + List.of(record.getParameters() == null
                    ? new Object[0] : record.getParameters()) + " " + stackTrace(record.getThrown()));
        }
        seen.addAll(metrics.apply(0));
        seen.addAll(metrics.apply(1));

        assertThat(logs.records()).as("the instances logged (the reset, the shadow limit)").isNotEmpty();
        assertThat(metrics.apply(0)).as("the instances recorded metrics").isNotEmpty();
        assertThat(seen).allSatisfy(text -> assertThat(text.toLowerCase(Locale.ROOT)).doesNotContain(CLEAR));
    }

    /** A log-in's limits on its {@code @RateLimitKey String username}: failures per account, and a shadow limit. */
    private static ResolvedLimits login() {
        LimitDeclaration account = LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name("login-account")
                .permitLimit(3).windowSeconds(3600).per(RateLimitPer.ARGUMENT).failuresOnly(true).build();
        LimitDeclaration shadow = LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name("login-account-shadow")
                .permitLimit(1).windowSeconds(3600).per(RateLimitPer.ARGUMENT).build();
        return LimitResolver.resolve(null, MethodDeclarations.beanMethod("Login.login(String)", List.of(),
                List.of(account, shadow)).withKeys(List.of(new KeyParameter(0, "java.lang.String", false, false)), true));
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, String username, long seconds)
            throws Exception {
        return engine.decide(engine.ledger("anonymous"), limits, 1, username).get(seconds, TimeUnit.SECONDS);
    }

    private static String stackTrace(Throwable thrown) {
        if (thrown == null) {
            return "";
        }
        StringWriter out = new StringWriter();
        thrown.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
