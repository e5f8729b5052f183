package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.redis.transport.ArgumentSink;

/**
 * A give-back: one call of the counts script (its release, {@code r}) gives back what limits
 * {@code limits[from .. to)} of a decision spent, their counts sharing a slot; per count its receipt and permits. The
 * reply: the permits given back.
 */
final class GiveBackCall extends CountsScriptCall<Long> {

    private final RateLimitDecision decision;
    private final int[] limits;
    private final int from;
    private final int n;
    /** How many of the decision's multiple go back: all of it, or a slice's unused part. */
    private final int multiple;

    GiveBackCall(RedisRateLimitStore store, RateLimitDecision decision, int multiple, int[] limits, int from, int to) {
        super(store, RELEASE, 1);
        this.decision = decision;
        this.multiple = multiple;
        this.limits = limits;
        this.from = from;
        this.n = to - from;
    }

    @Override
    public int keys() {
        return n;
    }

    @Override
    public void writeKey(int k, ArgumentSink sink) {
        int i = limits[from + k];
        RateLimitRequest request = decision.request();
        sink.key(store.prefix(), request.key(i).partition(decision.partition()), BoundCountKey.of(request, i).suffix);
    }

    @Override
    int body() {
        return 2 * n;
    }

    @Override
    void writeBody(int j, ArgumentSink sink) {
        int i = limits[from + j / 2];
        sink.number(j % 2 == 0 ? store.micros(decision.outcome(i).receipt())
                : (long) decision.request().cost(i) * multiple);
    }

    @Override
    Long decode(long[] reply, int count) {
        if (count != 1) {
            throw unexpected(reply, count);
        }
        return reply[0];
    }
}
