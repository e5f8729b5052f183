package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.security.Principal;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What counting by an argument costs a call: the engine's request path for one limit on the in-process store, one
 * thread, a ledger per call (as the interceptor makes one outside a request), side by side:
 * <ul>
 *   <li>{@code perCaller}: a limit per caller, in the partition the partitioner chose ({@code sub:alice});</li>
 *   <li>{@code perArgument}: the same limit per argument: the key normalised (ASCII: no NFKC pass), digested
 *       (HMAC-SHA-256, 16 bytes, base64url), and decided in {@code arg:<digest>};</li>
 *   <li>{@code perArgumentUnicode}: a key that is not ASCII, which takes the NFKC pass too.</li>
 * </ul>
 * The target: {@code perArgument} at most 0.3 us above {@code perCaller}. Never exhausted: every call is allowed.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class KeyedDecisions {

    private static final RateLimitCaller ALICE = new RateLimitCaller() {
        private final Principal principal = () -> "alice";

        @Override
        public Principal principal() {
            return principal;
        }

        @Override
        public String header(String name) {
            return null;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }
    };

    String key = " Alice@Example.com";
    String unicodeKey = " Zo\u00EB.M\u00FCller@Example.com";

    RateLimitEngine engine;
    BoundLimits perCaller;
    BoundLimits perArgument;

    @Setup
    public void setUp() {
        engine = Ours.engine(RateLimitMetrics.NONE);
        perCaller = bind(engine, "KeyedDecisions.perCaller(String)", RateLimitPer.CALLER, "per-caller");
        perArgument = bind(engine, "KeyedDecisions.perArgument(String)", RateLimitPer.ARGUMENT, "per-argument");
    }

    /** One limit of {@code per}, on a bean method whose parameter 0 is its {@code @RateLimitKey}. */
    static BoundLimits bind(RateLimitEngine engine, String where, RateLimitPer per, String name) {
        LimitDeclaration declared = LimitDeclaration.builder(DeclaredOn.METHOD, where).policy(Ours.policy(name))
                .per(per).build();
        List<KeyParameter> keys = per == RateLimitPer.ARGUMENT
                ? List.of(new KeyParameter(0, "java.lang.String", false, false)) : List.of();
        return engine.binder().bind(LimitResolver.resolve(null,
                MethodDeclarations.beanMethod(where, List.of(), List.of(declared)).withKeys(keys, true)));
    }

    @Benchmark
    public RateLimitDecision perCaller() {
        return DecisionStages.join(engine.decide(engine.ledger(ALICE, null), perCaller, 1));
    }

    @Benchmark
    public RateLimitDecision perArgument() {
        return DecisionStages.join(engine.decide(engine.ledger(ALICE, null), perArgument, 1, key));
    }

    @Benchmark
    public RateLimitDecision perArgumentUnicode() {
        return DecisionStages.join(engine.decide(engine.ledger(ALICE, null), perArgument, 1, unicodeKey));
    }
}
