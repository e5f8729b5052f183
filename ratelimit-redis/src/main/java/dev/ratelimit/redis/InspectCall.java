package dev.ratelimit.redis;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.transport.ArgumentSink;

/**
 * The admin API's reading of a count ({@link RedisRateLimitStore#inspect}): one call of the counts script (its
 * inspect, {@code i}) reads the count of the request's first limit without writing. Its arguments are the acquire's,
 * of that limit spending one permit, not waiting, giving nothing back; the reply: permits left, reset, debt.
 */
final class InspectCall extends CountsScriptCall<CountState> {

    private static final long NANOS_PER_MICRO = 1_000L;

    private final String partition;
    private final RateLimitRequest request;
    private final BoundCountKey bound;

    InspectCall(RedisRateLimitStore store, String partition, RateLimitRequest request) {
        super(store, INSPECT, 3);
        this.partition = partition;
        this.request = request;
        this.bound = BoundCountKey.of(request, 0);
    }

    @Override
    public int keys() {
        return 1;
    }

    @Override
    public void writeKey(int k, ArgumentSink sink) {
        sink.key(store.prefix(), request.key(0).partition(partition), bound.suffix);
    }

    @Override
    int body() {
        return 7;
    }

    @Override
    void writeBody(int j, ArgumentSink sink) {
        RateLimitPolicy policy = request.policy(0);
        switch (j) {
            case 0, 5 -> sink.number(0);
            case 1 -> sink.bytes(bound.code(Kind.ACQUIRE, request.tag(0), policy));
            case 2 -> sink.number(bound.arguments(policy).limit);
            case 3 -> sink.number(bound.arguments(policy).size);
            case 4 -> sink.number(1);
            default -> sink.bytes(EMPTY);
        }
    }

    @Override
    CountState decode(long[] reply, int count) {
        if (count != 3) {
            throw unexpected(reply, count);
        }
        long reset = reply[1];
        return new CountState(request.policy(0), (int) reply[0], reset < 0 ? -1 : reset * NANOS_PER_MICRO, reply[2]);
    }
}
