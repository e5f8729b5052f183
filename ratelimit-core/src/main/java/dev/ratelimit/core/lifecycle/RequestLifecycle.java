package dev.ratelimit.core.lifecycle;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.headers.RateLimitHeaders;
import java.util.concurrent.CompletableFuture;

/**
 * The steps of one limited request on a server, in the order its filters call them. An adapter finds the
 * request's {@link RequestLedger} its own way (a request property, the request's routing context), and passes it
 * with what its runtime does differently: how a request is suspended ({@link Suspension}) and where a header goes
 * ({@link RateLimitHeaders.Sink}).
 * <ol>
 *   <li>{@link #decideScope}: the request filter of a scope (TRANSPORT, between authentication and authorization;
 *       PRINCIPAL, after authorization) decides that scope's limits. A refusal is recorded in the ledger, not
 *       answered: step 2 answers it; but a refusal by a limit that counts only failures is answered here, at once,
 *       so that no later filter's answer (a 401 to a wrong password) tells a guesser which attempt was right.</li>
 *   <li>{@link #answerRefusal}: the last request filter answers a recorded refusal with
 *       {@link RateLimitExceededException} (the exception mapper's 429). Running last, it lets a later filter's own
 *       refusal (401, 403, 415...) win, and the body is never read.</li>
 *   <li>{@link #respond}, once the response's status is known: a refused request gives back every permit it spent
 *       (a 429, or another filter's refusal after the limiter's: either way it spends nothing); a request that was let
 *       through gives back the permits of its limits that count only failures when the status is a success for them;
 *       and</li>
 *   <li>the rate-limit headers are written on every response the limiter answered or let through; another filter's
 *       refusal gets none.</li>
 * </ol>
 *
 * <p>A bean method's limits that count only failures are judged by its outcome, which the interceptor sees
 * ({@link RateLimitEngine#succeeded}); a resource method's by the status, here, even where the interceptor decided
 * them (its limits per argument). A response never written (a dropped connection, a request never resumed) never
 * gets here: its attempt stays counted as a failure.
 *
 * <p>Stateless; the ledger keeps each request's state.
 */
public final class RequestLifecycle {

    /** The status of a refusal by the limiter. */
    public static final int TOO_MANY_REQUESTS = 429;

    private RequestLifecycle() {
    }

    /**
     * Step 1: decides one scope's limits for the request, and records the decision in its ledger. An answer that is
     * not there at once (a remote store) suspends the request where the runtime can ({@code suspension}), so that no
     * thread waits for it; elsewhere this thread waits, at most the store timeout.
     *
     * @param engine     the engine the limits were bound by
     * @param ledger     the request's ledger
     * @param limits     the scope's limits; null or empty: nothing to decide
     * @param request    the runtime's request, for {@code suspension}
     * @param suspension how the runtime suspends a request filter
     * @throws RateLimitStoreException when the store failed and {@code ratelimit.store.on-failure} is {@code fail}
     *                                 (its exception mapper answers: 500, empty body)
     * @throws RateLimitExceededException when a limit that counts only failures refused the request: answered at once
     */
    public static <R> void decideScope(RateLimitEngine engine, RequestLedger ledger, BoundLimits limits, R request,
                                       Suspension<? super R> suspension) {
        if (limits == null || limits.isEmpty()) {
            return;
        }
        CompletableFuture<RateLimitDecision> answer = engine.decide(ledger, limits, 1);
        if (!answer.isDone() && suspension.suspend(request)) {
            answer.whenComplete((decision, failure) -> suspension.resume(request,
                    failure != null ? DecisionStages.cause(failure) : refusedAtOnce(ledger)));
            return;
        }
        DecisionStages.join(answer);
        RateLimitExceededException refused = refusedAtOnce(ledger);
        if (refused != null) {
            throw refused;
        }
    }

    /** The refusal to answer at once: one by a limit that counts only failures; else null. */
    private static RateLimitExceededException refusedAtOnce(RequestLedger ledger) {
        return ledger.answersRefusalAtOnce() ? new RateLimitExceededException(ledger.refusal()) : null;
    }

    /**
     * Step 2, in the last request filter: answers the refusal the ledger recorded.
     *
     * @param ledger the request's ledger; null when no limit reached the request
     * @throws RateLimitExceededException with the first refusing decision, when there is one
     */
    public static void answerRefusal(RequestLedger ledger) {
        RateLimitDecision refusal = ledger == null ? null : ledger.refusal();
        if (refusal != null) {
            throw new RateLimitExceededException(refusal);
        }
    }

    /**
     * Steps 3 and 4, in the response filter: gives back what a refused request spent, then writes the rate-limit
     * headers unless another filter answered the request.
     *
     * @param engine  the engine the request decided with
     * @param ledger  the request's ledger; null when no limit reached the request: nothing is done
     * @param status  the response's status
     * @param formats the call site's formats of its headers, or null to format everything now
     * @param sink    where the headers go
     * @return true when headers were written
     */
    public static boolean respond(RateLimitEngine engine, RequestLedger ledger, int status, RateLimitHeaders.Formats formats,
                                  RateLimitHeaders.Sink sink) {
        if (ledger == null || !giveBack(engine, ledger, status)) {
            return false;
        }
        return RateLimitHeaders.write(ledger, formats, sink);
    }

    /**
     * Step 3: a refused request spends nothing, whoever answered it; one that was let through gives back what its
     * limits that count only failures spent when {@code status} is a success for them.
     *
     * @return false when another filter answered the request after the limiter refused it: it gets no headers
     */
    private static boolean giveBack(RateLimitEngine engine, RequestLedger ledger, int status) {
        if (ledger.refusal() == null) {
            engine.settle(ledger, status);
            return true;
        }
        if (status >= 400) {
            engine.giveBack(ledger);
        }
        return status == TOO_MANY_REQUESTS;
    }
}
