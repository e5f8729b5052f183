package dev.ratelimit.redis.transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * How {@code RedisRateLimitStore} reaches Redis: a Redis client that runs the store's script and carries its
 * announcements. Three ship: Jedis for calls made on threads that may block, with Lettuce for the others and for
 * announcements (what {@code RedisRateLimitStore.builder(String)} builds, {@code RedisRateLimitStore.Client}), Lettuce
 * alone, and, with the Quarkus extension, the application's Quarkus (Vert.x) Redis client, on its event loop.
 *
 * <p>Implementations are thread-safe, and none of their methods blocks, but {@link #send} of a transport made for
 * callers that may block (Jedis'), which returns once the call is answered or has failed, bounded by its timeout.
 */
public interface RedisTransport extends AutoCloseable {

    /**
     * Sends one call of the script: {@code EVALSHA}, and {@code EVAL} when Redis does not know the script yet (then
     * the same call again; the script's calls are idempotent until they reach Redis). Completes the call once, on any
     * thread: {@link ScriptCall#replied} with the integers of the reply, or {@link ScriptCall#failed}. A call sent
     * while the transport is not connected fails at once. Calls that arrive while others are on their way may be
     * written together (pipelined), each still its own script call.
     */
    void send(ScriptCall call);

    /** Completes once connected (the script loaded, where it can be), or fails with why not. */
    CompletionStage<Void> connected();

    /**
     * Subscribes to {@code channel} on a connection of its own: each message's text goes to {@code message};
     * {@code subscribed} runs whenever the subscription is in place, the first time and after every reconnection
     * (messages sent meanwhile are lost). Keeps trying while Redis is away.
     *
     * @return false when this transport cannot subscribe (then nothing is ever called)
     */
    boolean subscribe(String channel, Consumer<String> message, Runnable subscribed);

    /**
     * Sets {@code key} to {@code value} unless it exists, with no expiry, and completes with the value it holds then
     * ({@code value} when it was set): the fingerprint of {@code ratelimit.key-secret}, once, at start-up. A key of its
     * own, outside every count's hash tag.
     *
     * @return by default fails with {@link UnsupportedOperationException}: the transport keeps no fingerprint, and
     *         whether instances share one secret is not checked
     */
    default CompletionStage<String> setIfAbsent(String key, String value) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " cannot set a key, so that every instance has the same secret is not checked"));
    }

    /**
     * True when {@code failure}, which a call failed with, means that Redis could not be reached (no connection, an
     * I/O error, no answer in time) rather than an error Redis answered.
     */
    boolean unreachable(Throwable failure);

    /** Closes its connections (and what it made for them); what it was given stays open. */
    @Override
    void close();
}
