package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.core.lifecycle.RequestLifecycle;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import java.util.ArrayList;
import java.util.List;

/**
 * Ends a limited request ({@link RequestLifecycle#respond}): gives back its permits when it was refused, and writes
 * the rate-limit headers into the response's headers. From here on the ledger is no longer the thread's
 * ({@link RequestLedgers#withdraw}). One per resource method: what its headers repeat on every request
 * ({@code RateLimit-Policy}...) is formatted once, in its {@link RateLimitHeaders.Formats}.
 */
public final class HeaderFilter implements ContainerResponseFilter {

    private final RequestLedgers ledgers;
    private final RateLimitEngine engine;
    private final RateLimitHeaders.Formats formats = new RateLimitHeaders.Formats();

    public HeaderFilter(RateLimitRuntime runtime) {
        this.ledgers = runtime.ledgers();
        this.engine = runtime.engine();
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        RequestLedger ledger = DecidingFilter.ledgerOf(request);
        if (ledger == null) {
            return;
        }
        ledgers.withdraw(ledger);
        MultivaluedMap<String, Object> headers = response.getHeaders();
        RequestLifecycle.respond(engine, ledger, response.getStatus(), formats, (name, value) -> headers.put(name, single(value)));
    }

    /**
     * What {@code putSingle} would leave, made here: a runtime's {@code putSingle} looks the name up, makes its
     * own list and puts it (Jersey lower-cases the name for each step); one {@code put} is one step.
     */
    private static List<Object> single(String value) {
        List<Object> values = new ArrayList<>(1);
        values.add(value);
        return values;
    }
}
