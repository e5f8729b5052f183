package dev.ratelimit.internal.cdi;

import dev.ratelimit.RateLimitPartitioner;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.internal.config.RateLimitSettings;
import dev.ratelimit.internal.engine.RequestLedger;
import dev.ratelimit.internal.resolve.ResolvedLimit;
import dev.ratelimit.internal.resolve.ResolvedLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What the integrations share: the store, the partitioner, the settings, the request's ledger, and
 * the names declared so far (to warn once when one name is used by differently-sized limits).
 * Looked up once per deployment, never per request.
 */
@ApplicationScoped
public class RateLimitRuntime {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    @Inject
    RateLimitConfiguration configuration;

    @Inject
    RateLimitStore store;

    @Inject
    RateLimitPartitioner partitioner;

    @Inject
    LedgerHolder ledgerHolder;

    /** Guarded by itself: name to the first limit declared with it, and where. */
    private final Map<String, Declared> names = new HashMap<>();
    private final Set<String> warned = new HashSet<>();

    public RateLimitSettings settings() {
        return configuration.settings();
    }

    public RateLimitStore store() {
        return store;
    }

    public RateLimitPartitioner partitioner() {
        return partitioner;
    }

    /** The current request's ledger; null outside a request or before the filters made one. */
    public RequestLedger currentLedger() {
        try {
            return ledgerHolder.ledger();
        } catch (ContextNotActiveException e) {
            return null;
        }
    }

    /** Makes {@code ledger} the current request's; false when no request context is active. */
    public boolean publish(RequestLedger ledger) {
        try {
            ledgerHolder.ledger(ledger);
            return true;
        } catch (ContextNotActiveException e) {
            return false;
        }
    }

    /**
     * Notes the limits of a method at deployment; warns (once per pair of methods) when a name is
     * shared by limits of different sizes: the count takes its size from whichever request creates it.
     */
    public void declared(ResolvedLimits limits) {
        synchronized (names) {
            for (ResolvedLimit limit : limits.limits()) {
                RateLimitPolicy policy = limit.policy();
                Declared first = names.putIfAbsent(policy.name(), new Declared(policy, limits.where()));
                if (first != null && (first.policy.permitLimit() != policy.permitLimit()
                        || first.policy.windowSeconds() != policy.windowSeconds())
                        && warned.add(policy.name() + '\u0000' + first.where + '\u0000' + limits.where())) {
                    LOG.log(Level.WARNING, "ratelimit: the limit name \"" + policy.name() + "\" is shared by "
                            + first.where + " (" + first.policy.permitLimit() + "/" + first.policy.windowSeconds()
                            + "s) and " + limits.where() + " (" + policy.permitLimit() + "/"
                            + policy.windowSeconds() + "s); they spend from one count per partition, sized by "
                            + "whichever request creates it");
                }
            }
        }
    }

    private record Declared(RateLimitPolicy policy, String where) {
    }
}
