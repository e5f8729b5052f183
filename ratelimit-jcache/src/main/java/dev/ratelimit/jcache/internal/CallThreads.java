package dev.ratelimit.jcache.internal;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The threads that wait for the grid: JCache's calls block until the owner answers, and a request must not. A
 * fixed number of daemon threads, made on demand and ended after a minute idle, with a bounded queue: when the grid
 * is slow and the queue is full, a call is refused at once (its stage fails, and the engine's failure policy
 * decides), rather than piling up. Threads carry the class loader that built the store, so that whatever the grid
 * hands back resolves as it does for the application.
 */
public final class CallThreads {

    private CallThreads() {
    }

    /** A pool of {@code threads} threads and a queue of {@code queue} calls. */
    public static ExecutorService pool(int threads, int queue) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread t = new Thread(runnable, "ratelimit-jcache-" + count.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(loader);
            return t;
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queue), factory, new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * {@code work} on {@code executor}, its result or failure completing the stage there; when the executor refuses
     * it (its queue is full), the stage fails at once with an {@code IllegalStateException} saying {@code whenFull},
     * caused by the {@code RejectedExecutionException}.
     */
    public static <T> CompletableFuture<T> submit(Executor executor, Supplier<T> work, Supplier<String> whenFull) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(work.get());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException(whenFull.get(), e));
        }
        return result;
    }
}
