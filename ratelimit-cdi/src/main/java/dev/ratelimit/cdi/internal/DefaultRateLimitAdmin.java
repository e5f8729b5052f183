package dev.ratelimit.cdi.internal;

import dev.ratelimit.RateLimitAdmin;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.RefusalSummary.Refused;
import dev.ratelimit.core.live.LimitAdmin;
import dev.ratelimit.core.live.LimitAdmin.LimitView;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@link RateLimitAdmin} on the engine's {@link LimitAdmin}: waits for the store, at most its timeout and a second. */
@ApplicationScoped
public class DefaultRateLimitAdmin implements RateLimitAdmin {

    @Inject
    DefaultRateLimitRuntime runtime;

    private LimitAdmin admin;
    private long waitMillis;

    @PostConstruct
    void init() {
        admin = runtime.engine().admin();
        waitMillis = runtime.settings().timeoutMillis() + 1_000L;
    }

    @Override
    public List<LimitView> limits() {
        return admin.limits();
    }

    @Override
    public CountState count(String name, String partition, String plan) {
        return await(admin.count(name, partition, plan), name);
    }

    @Override
    public void reset(String name, String partition, String plan, String requestedBy) {
        await(admin.reset(name, partition, plan, requestedBy), name);
    }

    @Override
    public String keyPartition(String name, String key) {
        return admin.keyPartition(name, key);
    }

    @Override
    public List<Refused> refused(String name, int top) {
        return admin.refused(name, top);
    }

    private <T> T await(CompletionStage<T> stage, String name) {
        try {
            return stage.toCompletableFuture().get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RateLimitStoreException("ratelimit: interrupted while the store answered for \"" + name + "\"", e);
        } catch (ExecutionException | CompletionException e) {
            throw new RateLimitStoreException("ratelimit: the store failed for \"" + name + "\": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new RateLimitStoreException("ratelimit: the store did not answer for \"" + name + "\" in "
                    + waitMillis + " ms", e);
        }
    }
}
