package dev.ratelimit.core;

import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * Keeps the counts. The default is the in-process {@code dev.ratelimit.core.store.InProcessRateLimitStore};
 * a store module brings a shared one; an application replaces it with a CDI bean implementing
 * this interface that is an enabled {@code @Alternative}. The engine bounds every store by
 * {@code ratelimit.store.timeout-millis} and applies {@code ratelimit.store.on-failure} around it, so a
 * store implements neither.
 *
 * <p>The contract, for every algorithm ({@link RateLimitAlgorithm}):
 * <ul>
 *   <li>a count per ({@link CountKey}, partition), sized (permit limit, window) by the policy of the
 *       request that creates it; a count whose permits have all returned holds nothing and is sized
 *       anew by the next request that finds it so;</li>
 *   <li>windows step in eighths of the window, anchored at the count's creation; a permit spent in step
 *       {@code j} returns at {@code anchor + (j + 8) * step} ({@link RateLimitAlgorithm#SLIDING_WINDOW})
 *       or {@code anchor + (j + 9) * step} ({@link RateLimitAlgorithm#STRICT_WINDOW}); a token bucket
 *       gets one permit back every {@code ceil(window / permitLimit)} (in whole microseconds) and holds at most
 *       {@code permitLimit};</li>
 *   <li>all or nothing across the request's limits, whatever their algorithms
 *       ({@link RateLimitRequest.Kind}); give-back returns exactly what was spent, to the step it was
 *       spent in, unless it has returned already;</li>
 *   <li>never blocking the caller: a remote store completes the stage when its answer arrives, or fails it.</li>
 * </ul>
 * The abstract test class {@code dev.ratelimit.core.testing.RateLimitStoreContract} (the ratelimit-core
 * test-jar) holds a store to all of it. A store that keeps each count as bytes it can update atomically (a map's
 * {@code compute}, a data grid's entry processor, a compare-and-set) need not implement any of the arithmetic: it runs
 * the in-process store's own, {@link dev.ratelimit.core.store.CountCall} and
 * {@link dev.ratelimit.core.store.CountSequence} (docs/stores.md, "A store of your own").
 */
public interface RateLimitStore {

    /**
     * Prepares the counts of one key, once, when the application deploys, before any request names it.
     * What it returns is handed back in every {@link RateLimitRequest} that spends from those counts
     * ({@link RateLimitRequest#handle}), so that a request never looks its counts up by name. The default
     * returns the key.
     */
    default Object bind(CountKey key) {
        return key;
    }

    /**
     * Spends from the counts of {@code partition}: {@code request.cost(i) * multiple} permits from each
     * limit {@code i}, all or nothing, atomically.
     *
     * @param partition the partition, from the {@link RateLimitPartitioner}; any string
     * @param request   the limits, bound to this store
     * @param multiple  how many times each limit's cost is spent, {@code >= 1}
     * @return a decision with one outcome per limit, in order
     */
    CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple);

    /**
     * True when this store decides on the caller's thread without waiting for anything (no I/O): then the engine
     * calls {@link #decide} instead of {@link #acquire}, and makes no stage and no timer per call. A property of
     * the store, constant for its life; read once, when the engine is built. Default false.
     */
    default boolean answersAtOnce() {
        return false;
    }

    /**
     * True when several instances of the application may count in this store (a shared database, a grid): then every
     * instance must digest keys alike (a {@code per = ARGUMENT} limit needs {@code ratelimit.key-secret}, and the
     * engine checks that instances share it). False for a store that counts in this JVM only, which may digest with a
     * secret of this start. A property of the store, constant for its life; read once, when the engine is built.
     * Default true: a store says it is not shared.
     */
    default boolean shared() {
        return true;
    }

    /**
     * {@link #acquire}, answered on the caller's thread: for a store that {@link #answersAtOnce()} (the in-process
     * store), the only one the engine calls this on.
     *
     * @throws UnsupportedOperationException by default: the store does not answer at once
     */
    default RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
        throw new UnsupportedOperationException(getClass().getName() + " does not answer at once: call acquire");
    }

    /**
     * Gives back every permit the decision spent (its {@link RateLimitDecision.State#SPENT} outcomes of
     * kind {@code ACQUIRE} or {@code SHADOW}; charges stay spent), each to the step it was spent in,
     * unless it has returned already. Never blocks.
     *
     * @return completes once the permits are back; fails when the store could not give them back
     */
    CompletionStage<Void> release(RateLimitDecision decision);

    /**
     * Gives back {@code multiple} of the {@link RateLimitDecision#multiple()} times each limit's cost that the decision
     * spent ({@code request.cost(i) * multiple} permits from each limit that {@link #release(RateLimitDecision)} would
     * give back), each to the step it was spent in, unless they have returned already: what is left of a slice
     * (docs/stores.md, "Exact or sliced"). The rest of the decision stays spent, and may be given back by a later
     * call. Never blocks.
     *
     * @param multiple how many of the decision's multiple go back, {@code 1 .. decision.multiple()}
     * @return completes once the permits are back; by default, {@code multiple == decision.multiple()} is
     *         {@link #release(RateLimitDecision)}, anything less fails with {@link UnsupportedOperationException}
     */
    default CompletionStage<Void> release(RateLimitDecision decision, int multiple) {
        if (multiple == decision.multiple()) {
            return release(decision);
        }
        return CompletableFuture.failedFuture(new UnsupportedOperationException("ratelimit: the store " + this
                + " cannot give back part of a decision"));
    }

    /**
     * True when the engine may take slices of this store's counts (docs/stores.md, "Exact or sliced"): the store gives
     * back part of a decision ({@link #release(RateLimitDecision, int)}), and, once it announces
     * ({@link #announceTo}), calls {@link CountListener#gained} after every restart of a count ({@link #restart}) made
     * by any instance, whether or not the count had refused. A property of the store, constant for its life; read
     * once, when the engine is built. Default false: every request is decided by the store.
     */
    default boolean slices() {
        return false;
    }

    /**
     * Forgets every count, as if the store were new: what the test API's {@code reset()} does. Not atomic with
     * calls in flight.
     *
     * @throws UnsupportedOperationException by default: a store shared by several instances keeps its counts
     *                                       for all of them (flush its keys instead)
     */
    default void clear() {
        throw new UnsupportedOperationException("ratelimit: the store " + this + " cannot forget its counts here");
    }

    /**
     * Reads the count of the request's first limit in {@code partition} without spending from it (the
     * admin API): what a request of that limit would find, re-sized as it would be
     * ({@link RateLimitRequest#tag}); a count that does not exist or holds nothing is
     * {@linkplain CountState#untouched untouched}. Never blocks.
     *
     * @throws UnsupportedOperationException by default: a store of an application that predates the admin API
     */
    default CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        throw new UnsupportedOperationException("ratelimit: the store " + this + " cannot read a count without spending");
    }

    /**
     * Starts the count of the request's first limit in {@code partition} afresh: the caller gets every permit back,
     * debt included (the admin API). A shared store does it for every instance. Permits of a request in
     * flight may be given back to the new count's advantage, never to its cost. Never blocks.
     *
     * @throws UnsupportedOperationException by default: a store of an application that predates the admin API
     */
    default CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        throw new UnsupportedOperationException("ratelimit: the store " + this + " cannot start a count afresh");
    }

    /**
     * Called once, when the engine is built with metrics: a store that keeps counts in this JVM reports how many
     * ({@link RateLimitMetrics#counts}, the {@code ratelimit.counts} gauge). Default: nothing to report.
     */
    default void register(RateLimitMetrics metrics) {
    }

    /**
     * Keeps the fingerprint of {@code ratelimit.key-secret} for every instance that shares this store: stores
     * {@code fingerprint} unless the store holds one already (no expiry where the store can keep it without one), and
     * completes with the one it holds then. The engine calls it once, when it is built with the secret set on a store
     * other than the in-process one, and fails start-up when the answer is not its own fingerprint: instances that
     * digest keys with different secrets would count one account apart (docs/login-protection.md, "One secret for
     * every instance"). Never blocks.
     *
     * @param fingerprint at most 64 ASCII characters: an HMAC of a fixed text keyed by the secret, never the secret nor
     *                    a plain hash of it
     * @return the default keeps nothing and completes with {@code fingerprint}: a store one instance alone uses
     */
    default CompletionStage<String> keySecretFingerprint(String fingerprint) {
        return CompletableFuture.completedFuture(fingerprint);
    }

    /**
     * How metrics and logs name this store: {@code in-process}, a shared store's short name, else the class name.
     */
    default String storeName() {
        return getClass().getName();
    }

    /**
     * True when {@code failure} (what {@link #acquire} threw, or failed its stage with, unwrapped) means that the
     * store could not be reached: no answer in time, an I/O failure, a connection that is closed or not yet open.
     * False when the store answered with an error. After an unreachable store the engine applies
     * {@code ratelimit.store.on-failure} for {@code ratelimit.store.retry-millis} without calling the store, then lets
     * one call probe it; an answered error costs that call alone. Called on failures only. Default: a
     * {@link TimeoutException} or an {@link IOException} among the failure and its causes.
     */
    default boolean unreachable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TimeoutException || t instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Asks a store that several instances share to announce what other instances do to its counts (the engine calls
     * it once, when it is built): a store that returns true promises to call {@code listener} as
     * {@link CountListener} says. The engine then answers a request that the store refused until an instant (its
     * retry-after) itself, until that instant, without asking the store again, for at most
     * {@code ratelimit.store.refusal-memory-millis}; an announcement ends that early. The default returns false: the
     * store announces nothing, and the engine asks it every time (a store that answers at once,
     * {@link #answersAtOnce()}, is always asked).
     *
     * @return true when the store announces to {@code listener}
     */
    default boolean announceTo(CountListener listener) {
        return false;
    }

    /**
     * What a shared store announces to each instance ({@link #announceTo}). Its calls may come on any thread, at any
     * time, more often than needed (a spurious call costs one store call); each must return at once.
     *
     * <p>The contract: once the store has called {@link #anyMayHaveGained()} for the first time,
     * <ul>
     *   <li>when a count refused a call of kind {@code ACQUIRE} that may not wait, since that count's last
     *       announcement, and then gains permits before its retry-after passes by a give-back ({@link #release}) or a
     *       restart ({@link #restart}), made by any instance sharing the store, this one included, the store calls
     *       {@link #gained} for that count, after the change is visible to every later call;</li>
     *   <li>whenever announcements may have been lost (the store's channel for them connected again, or cannot tell),
     *       it calls {@link #anyMayHaveGained()}.</li>
     * </ul>
     * Until the first {@link #anyMayHaveGained()} the engine remembers nothing.
     */
    interface CountListener {

        /**
         * The count of the limit {@code name} for the callers of {@code plan} (null: callers in no plan) in
         * {@code partition} ({@link CountKey#APPLICATION} for a count per application) may have gained permits.
         */
        void gained(String name, String plan, String partition);

        /** Any count may have gained permits: announcements may have been lost. */
        void anyMayHaveGained();
    }
}
