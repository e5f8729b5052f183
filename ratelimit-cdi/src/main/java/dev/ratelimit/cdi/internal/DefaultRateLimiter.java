package dev.ratelimit.cdi.internal;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.security.Principal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The programmatic API ({@link RateLimiter}): a thin adapter over the engine, like the interceptor. */
@ApplicationScoped
public class DefaultRateLimiter implements RateLimiter {

    @Inject
    RateLimitRuntime runtime;

    @Inject
    @Any
    Instance<Principal> principal;

    /** What the runtime hands out, kept: plain objects, not called through the runtime's client proxy per call. */
    private RateLimitEngine engine;
    private RequestLedgers ledgers;

    @PostConstruct
    void start() {
        engine = runtime.engine();
        ledgers = runtime.ledgers();
    }

    @Override
    public RateLimitDecision acquire(String name, int permits) {
        return refusedThrows(DecisionStages.join(engine.decide(ledger(), named(name).acquire(), permits)));
    }

    @Override
    public RateLimitDecision acquire(String name, int permits, String partition) {
        return refusedThrows(DecisionStages.join(engine.decide(engine.ledger(partition), named(name).acquire(), permits)));
    }

    @Override
    public CompletionStage<RateLimitDecision> acquireAsync(String name, int permits) {
        return engine.decide(ledger(), named(name).acquire(), permits).thenCompose(decision ->
                decision != null && !decision.allowed()
                        ? CompletableFuture.failedFuture(new RateLimitExceededException(decision))
                        : CompletableFuture.completedFuture(decision));
    }

    @Override
    public RateLimitDecision charge(String name, int permits) {
        return DecisionStages.join(engine.decide(ledger(), named(name).charge(), permits));
    }

    @Override
    public RateLimitDecision charge(String name, int permits, String partition) {
        return DecisionStages.join(engine.decide(engine.ledger(partition), named(name).charge(), permits));
    }

    @Override
    public RateLimitDecision acquireForKey(String name, int permits, Object key) {
        return refusedThrows(DecisionStages.join(engine.decide(ledger(), named(name).acquire(), permits, key)));
    }

    @Override
    public RateLimitDecision acquireForAddress(String name, int permits, InetAddress client) {
        return refusedThrows(DecisionStages.join(engine.decide(engine.ledger(new ClientOnly(client), null),
                named(name).acquire(), permits)));
    }

    /** A caller known by its address alone: no principal, no header, no role. */
    private record ClientOnly(InetAddress clientAddress) implements RateLimitCaller {
        @Override
        public Principal principal() {
            return null;
        }

        @Override
        public String header(String name) {
            return null;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }
    }

    private NamedLimit named(String name) {
        if (name == null) {
            throw new IllegalArgumentException("ratelimit: the limit name must not be null");
        }
        return engine.binder().named(name);
    }

    /** The current request's ledger, or one for this call alone with the CDI caller. */
    private RequestLedger ledger() {
        RequestLedger ledger = ledgers.current();
        return ledger != null ? ledger : engine.ledger(new CdiCaller(principal), null);
    }

    private static RateLimitDecision refusedThrows(RateLimitDecision decision) {
        if (decision != null && !decision.allowed()) {
            throw new RateLimitExceededException(decision);
        }
        return decision;
    }

    @Override
    public String toString() {
        return "RateLimiter";
    }
}
