package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.redis.transport.ArgumentSink;

/**
 * The admin API's starting a count afresh ({@link RedisRateLimitStore#restart}): one call of the counts script (its
 * restart, {@code x}) deletes the count of the request's first limit, so that every instance finds it missing, as new;
 * announced when the count had refused.
 */
final class RestartCall extends CountsScriptCall<Void> {

    private final String partition;
    private final RateLimitRequest request;

    RestartCall(RedisRateLimitStore store, String partition, RateLimitRequest request) {
        super(store, RESTART, 1);
        this.partition = partition;
        this.request = request;
    }

    @Override
    public int keys() {
        return 1;
    }

    @Override
    public void writeKey(int k, ArgumentSink sink) {
        sink.key(store.prefix(), request.key(0).partition(partition), BoundCountKey.of(request, 0).suffix);
    }

    @Override
    int body() {
        return 0;
    }

    @Override
    void writeBody(int j, ArgumentSink sink) {
        throw new IndexOutOfBoundsException(j);
    }

    @Override
    Void decode(long[] reply, int count) {
        if (count != 1) {
            throw unexpected(reply, count);
        }
        return null;
    }
}
