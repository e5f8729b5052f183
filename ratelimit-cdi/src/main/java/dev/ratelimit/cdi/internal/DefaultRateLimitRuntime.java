package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.core.config.LimitsFile;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.live.LiveValues;
import dev.ratelimit.core.log.LogText;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link RateLimitRuntime}: the engine on the store, partitioner, plan resolver and metrics beans in use, made
 * once when the application starts. An adapter keeps what it hands out (a Weld client proxy returns itself for
 * a method that returns {@code this}, so the instance cannot be handed out).
 */
@ApplicationScoped
public class DefaultRateLimitRuntime implements RateLimitRuntime {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    @Inject
    RateLimitConfiguration configuration;

    @Inject
    RateLimitStore store;

    @Inject
    RateLimitPartitioner partitioner;

    @Inject
    RateLimitPlanResolver planResolver;

    @Inject
    @Any
    Instance<RateLimitMetrics> metrics;

    @Inject
    DefaultRequestLedgers.Holder ledgerHolder;

    /** A runtime integration's own {@link RequestLedgers} (ratelimit-quarkus'), when it provides one as a bean. */
    @Inject
    Instance<RequestLedgers> integrationLedgers;

    private RequestLedgers ledgers;
    private RateLimitEngine engine;
    private final AtomicBoolean checked = new AtomicBoolean();
    /** Reads live values again; null when the configuration is read once. One daemon thread. */
    private ScheduledExecutorService refresher;

    @PostConstruct
    void start() {
        try {
            build();
        } catch (RuntimeException e) {
            throw StartupFailures.logged(e);
        }
    }

    private void build() {
        RateLimitSettings settings = configuration.settings();
        for (String warning : configuration.startup().warnings()) {
            LOG.log(Level.WARNING, warning); // keys the limits file sets but does not read: once, at start-up
        }
        RateLimitMetrics recorder = metrics();
        ledgers = integrationLedgers.isResolvable() ? integrationLedgers.get()
                : new DefaultRequestLedgers(ledgerHolder, DefaultRequestLedgers.contextFollowsTheRequest());
        engine = RateLimitEngine.builder(settings, store)
                .partitioner(partitioner)
                // the default resolver follows the plans of each configuration live values apply
                .planResolver(planResolver instanceof DefaultRateLimitPlanResolver ? null : planResolver)
                .metrics(recorder)
                .clock(configuration.clock())
                .refreshing(configuration.refreshSeconds() > 0)
                .build();
        if (settings.enabled() && configuration.refreshSeconds() > 0) {
            LiveValues live = new LiveValues(engine.binder(), configuration.startup(), configuration.base(),
                    configuration.limitsFile());
            refresher = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "ratelimit-live-values");
                thread.setDaemon(true);
                return thread;
            });
            long seconds = configuration.refreshSeconds();
            refresher.scheduleWithFixedDelay(live::refresh, seconds, seconds, TimeUnit.SECONDS);
            LOG.log(Level.INFO, "ratelimit: live values: " + (configuration.limitsFile() == null ? ""
                    : "the limits file " + configuration.limitsFile() + " and ") + "the live keys of MicroProfile Config "
                    + "are read again every " + seconds + " s (" + LimitsFile.REFRESH_SECONDS + ")");
        }
    }

    @PreDestroy
    void stop() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
        if (engine != null) {
            engine.close(); // slices give back their unused permits
        }
    }

    @Override
    public AdminSettings adminSettings() {
        return configuration.admin();
    }

    private RateLimitMetrics metrics() {
        List<RateLimitMetrics> found = new ArrayList<>();
        for (RateLimitMetrics m : metrics) {
            if (m.isEnabled()) {
                found.add(m);
            }
        }
        if (found.isEmpty()) {
            return RateLimitMetrics.NONE;
        }
        return found.size() == 1 ? found.get(0) : new CompositeMetrics(found);
    }

    @Override
    public RateLimitEngine engine() {
        return engine;
    }

    @Override
    public RateLimitSettings settings() {
        return configuration.settings();
    }

    @Override
    public RequestLedgers ledgers() {
        return ledgers;
    }

    /**
     * Warns about configuration keys that name nothing the application declares. Called when CDI has started
     * and bound every limited bean method: when Jakarta REST is still to deploy ({@code restToFollow}) and a
     * key names a limit not known yet (one that only a resource class that is not a CDI bean, or the
     * {@code Application}, declares), the check waits for {@link #deploymentComplete()}: which Jakarta REST calls once
     * it has deployed, at start-up (Jersey, Quarkus), else the first request.
     */
    void checkConfiguration(boolean restToFollow) {
        if (!configuration.settings().enabled()) {
            checked.set(true); // nothing is applied: a key naming nothing changes nothing either
            return;
        }
        List<String> warnings = engine.binder().unknownKeyWarnings();
        if (warnings.isEmpty() || !restToFollow) {
            if (checked.compareAndSet(false, true)) {
                warn(warnings);
            }
        }
    }

    @Override
    public void deploymentComplete() {
        if (!checked.get() && checked.compareAndSet(false, true)) {
            warn(engine.binder().unknownKeyWarnings());
        }
    }

    private static void warn(List<String> warnings) {
        for (String warning : warnings) {
            // keys are the configuration's: a system property's name may hold any character
            LOG.log(Level.WARNING, "ratelimit configuration: " + LogText.of(warning));
        }
    }

    /** Several metrics libraries at once (Micrometer and OpenTelemetry): every instrument is made in each. */
    private static final class CompositeMetrics implements RateLimitMetrics {
        private final List<RateLimitMetrics> all;

        CompositeMetrics(List<RateLimitMetrics> all) {
            this.all = List.copyOf(all);
        }

        private Counter counters(java.util.function.Function<RateLimitMetrics, Counter> make) {
            Counter[] counters = new Counter[all.size()];
            for (int i = 0; i < counters.length; i++) {
                counters[i] = make.apply(all.get(i));
            }
            return () -> {
                for (Counter c : counters) {
                    c.increment();
                }
            };
        }

        private Timer timers(java.util.function.Function<RateLimitMetrics, Timer> make) {
            Timer[] timers = new Timer[all.size()];
            for (int i = 0; i < timers.length; i++) {
                timers[i] = make.apply(all.get(i));
            }
            return nanos -> {
                for (Timer t : timers) {
                    t.record(nanos);
                }
            };
        }

        @Override
        public Counter requests(String policy, Outcome outcome, String plan) {
            return counters(m -> m.requests(policy, outcome, plan));
        }

        @Override
        public Timer storeDuration(String store, StoreOutcome outcome) {
            return timers(m -> m.storeDuration(store, outcome));
        }

        @Override
        public Timer waited(String policy) {
            return timers(m -> m.waited(policy));
        }

        @Override
        public void counts(java.util.function.LongSupplier counts, long max) {
            for (RateLimitMetrics m : all) {
                m.counts(counts, max);
            }
        }

        // ---------------------------------------------------------- slices

        @Override
        public Counter sliceRequests(String policy, boolean atHome) {
            return counters(m -> m.sliceRequests(policy, atHome));
        }

        @Override
        public Counter slicesTaken(String policy) {
            return counters(m -> m.slicesTaken(policy));
        }

        @Override
        public Tally slicePermitsReturned(String policy) {
            Tally[] tallies = new Tally[all.size()];
            for (int i = 0; i < tallies.length; i++) {
                tallies[i] = all.get(i).slicePermitsReturned(policy);
            }
            return amount -> {
                for (Tally t : tallies) {
                    t.add(amount);
                }
            };
        }

        // ---------------------------------------------------------- what operators watch

        @Override
        public Counter nearLimit(String policy, String plan) {
            return counters(m -> m.nearLimit(policy, plan));
        }

        @Override
        public Counter refusedAtHome(String policy, String plan) {
            return counters(m -> m.refusedAtHome(policy, plan));
        }

        @Override
        public void breaker(String store, java.util.function.BooleanSupplier open) {
            for (RateLimitMetrics m : all) {
                m.breaker(store, open);
            }
        }
    }
}
