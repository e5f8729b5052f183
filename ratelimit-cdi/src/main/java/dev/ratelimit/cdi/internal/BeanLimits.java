package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.LimitReader;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.engine.WaitingCalls;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the interceptors do for a {@code @RateLimit} CDI bean method: a thin adapter over the engine. The
 * limits are bound per method once (at start-up by {@link RateLimitStartup}, or on the first call) and kept.
 *
 * <p>Within a Jakarta REST request the call joins the request's ledger (its partition, plan and give-back),
 * and the request's own resource method is left to the filters (exactly once), but for its limits counted per
 * argument, which only exist once the method is invoked: those are decided here, by the {@code @RateLimitKey}
 * argument, and its response's status tells whether the call succeeded. A method that returns a
 * {@code CompletionStage} (or a Mutiny {@code Uni}) gets the decision chained, never awaited: with a store that
 * answers later, the method runs once the answer is there (on the caller's Vert.x context where there is one), and a
 * refusal completes its stage with {@link RateLimitExceededException}. A bean method whose limits count only failures
 * gives their permits back once it returned without an exception (its stage or {@code Uni} completed).
 */
@ApplicationScoped
public class BeanLimits {

    private static final String HANDLED = BeanLimits.class.getName();

    @Inject
    RateLimitRuntime runtime;

    @Inject
    @Any
    Instance<Principal> principal;

    /** What the runtime hands out, kept: plain objects, not called through the runtime's client proxy per call. */
    private RateLimitEngine engine;
    private RequestLedgers ledgers;

    /** Guarded by the map: bound limits per method; an absent method has not been seen yet. */
    private final ConcurrentHashMap<Method, Guarded> methods = new ConcurrentHashMap<>();

    /** Binds and keeps the limits of a bean method; called at start-up for every limited method. */
    public Guarded bind(Class<?> beanClass, Method method) {
        return methods.computeIfAbsent(method, m -> bound(beanClass, m));
    }

    private Guarded bound(Class<?> beanClass, Method method) {
        ResolvedLimits resolved = LimitReader.forBeanMethod(beanClass, method);
        BoundLimits limits = engine.binder().bind(resolved);
        // a resource method's limits per argument, which the filters leave to this interceptor
        BoundLimits atInvocation = resolved.key() == null ? null : engine.binder().bindAtInvocation(resolved);
        return new Guarded(limits, atInvocation, Results.of(method.getReturnType()));
    }

    @PostConstruct
    void start() {
        engine = runtime.engine();
        ledgers = runtime.ledgers();
    }

    Object invoke(InvocationContext invocation) throws Exception {
        // First, before anything request-scoped: an invocation decided already comes back here when the interceptor
        // is bound twice (@RateLimit and its container), and when a call that waited proceeds later, from another
        // thread, on a MicroProfile Rest Client whose interceptor chain starts over (Jersey's, with Weld): it goes on.
        if (invocation.getContextData().putIfAbsent(HANDLED, Boolean.TRUE) != null) {
            return invocation.proceed();
        }
        Method method = invocation.getMethod();
        Guarded guarded = methods.get(method);
        if (guarded == null) {
            Method declared = LimitReader.declaredMethod(method);
            guarded = methods.computeIfAbsent(method, m -> bound(LimitReader.userClass(declared.getDeclaringClass()),
                    declared));
        }
        if (guarded.limits.isEmpty() && guarded.atInvocation == null) {
            return invocation.proceed();
        }
        RequestLedger ledger = ledgers.current();
        BoundLimits limits = guarded.limits;
        boolean byStatus = false;
        if (ledger != null && ledger.isResourceMethod(method)) {
            // the request's own resource method: the filters decided its limits, but for those per argument
            if (guarded.atInvocation == null || guarded.atInvocation.isEmpty()) {
                return invocation.proceed();
            }
            limits = guarded.atInvocation;
            byStatus = true; // its response's status tells a success
        } else if (limits.isEmpty()) {
            return invocation.proceed();
        }
        RateLimitEngine engine = this.engine;
        if (ledger == null) {
            ledger = engine.ledger(new CdiCaller(principal), null);
        }
        RequestLedger caller = ledger;
        BoundLimits decided = limits;
        Outcomes outcomes = byStatus ? null : new Outcomes(engine, caller);
        int key = decided.keyPosition();
        Supplier<CompletableFuture<RateLimitDecision>> decide = key < 0 ? () -> engine.decide(caller, decided, 1)
                : () -> engine.decide(caller, decided, 1, invocation.getParameters()[key]);
        return switch (guarded.results) {
            case SYNC -> {
                try {
                    RateLimitDecision decision = DecisionStages.join(decide.get());
                    if (decision != null) {
                        if (!decision.allowed()) {
                            throw new RateLimitExceededException(decision);
                        }
                        if (decision.waitNanos() > 0) {
                            WaitingCalls.sleep(decision, () -> engine.giveBack(caller, decision));
                        }
                    }
                    Object result = invocation.proceed(); // an exception: a failure, which keeps its permits
                    if (outcomes != null) {
                        outcomes.succeeded(decision);
                    }
                    yield result;
                } finally {
                    // a pass that comes back once this one is over is a call of its own: a retry of an interceptor
                    // outside this one (MicroProfile Fault Tolerance's, docs/fault-tolerance.md) is decided again
                    invocation.getContextData().remove(HANDLED);
                }
            }
            // over once its stage completes (a call that waited proceeds, and may come back here, before that)
            case COMPLETION_STAGE -> chained(decide.get(), invocation, outcomes)
                    .whenComplete((result, failure) -> invocation.getContextData().remove(HANDLED));
            // Mutiny is lazy: decided when the Uni or Multi is subscribed to
            case UNI -> MutinyResults.guarded(decide, invocation::proceed, Resumption.current(), outcomes);
            case MULTI -> MutinyResults.guardedMulti(decide, invocation::proceed, Resumption.current(), outcomes);
        };
    }

    /**
     * The method's stage, once the decision allows it and its permits exist; a refusal or a store failure fails the
     * stage. A decision that arrives later resumes on the caller's context (Vert.x) where there is one; a call that
     * waits for its permits is delayed without holding a thread ({@link Delays#after}).
     *
     * @param outcomes what judges the call by its outcome (the stage completing), or null where its status does
     */
    private static CompletionStage<Object> chained(CompletableFuture<RateLimitDecision> decision,
                                                   InvocationContext invocation, Outcomes outcomes) {
        Executor resume = decision.isDone() ? null : Resumption.current();
        Function<RateLimitDecision, CompletionStage<Object>> then = d -> {
            if (d != null && !d.allowed()) {
                return CompletableFuture.failedFuture(new RateLimitExceededException(d));
            }
            CompletionStage<Object> result = d != null && d.waitNanos() > 0
                    ? Delays.after(d.waitNanos()).thenCompose(ignored -> proceed(invocation)) : proceed(invocation);
            return outcomes == null ? result : result.whenComplete((value, failure) -> {
                if (failure == null) {
                    outcomes.succeeded(d);
                }
            });
        };
        return resume == null ? decision.thenCompose(then) : decision.thenComposeAsync(then, resume);
    }

    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> proceed(InvocationContext invocation) {
        try {
            Object result = invocation.proceed();
            return result == null ? CompletableFuture.completedFuture(null) : (CompletionStage<Object>) result;
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e instanceof CompletionException && e.getCause() != null
                    ? e.getCause() : e);
        }
    }

    /**
     * A bean method's bound limits, and how it returns.
     *
     * @param limits       every limit of the method, for a call of it as a bean
     * @param atInvocation for a method with a {@code @RateLimitKey} parameter, the limits per argument that this
     *                     interceptor decides when it is a request's resource method; else null
     */
    public record Guarded(BoundLimits limits, BoundLimits atInvocation, Results results) {
    }

    /**
     * Judges a bean call by its outcome: a call that went well gives back what its limits that count only failures
     * spent ({@link RateLimitEngine#succeeded}); one that failed, or whose outcome never comes, keeps it.
     */
    record Outcomes(RateLimitEngine engine, RequestLedger ledger) {
        void succeeded(RateLimitDecision decision) {
            if (decision != null) {
                engine.succeeded(ledger, decision);
            }
        }
    }

    /** How a method returns its result: what the interceptor chains the decision to. */
    enum Results {
        SYNC, COMPLETION_STAGE, UNI, MULTI;

        static Results of(Class<?> returnType) {
            if (CompletionStage.class.isAssignableFrom(returnType)) {
                return COMPLETION_STAGE;
            }
            // by name: Mutiny need not be there, and is loaded only when a method returns its Uni or Multi
            return switch (returnType.getName()) {
                case "io.smallrye.mutiny.Uni" -> UNI;
                case "io.smallrye.mutiny.Multi" -> MULTI;
                default -> SYNC;
            };
        }
    }
}
