package dev.ratelimit.redis;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.transport.ArgumentSink;

/**
 * Calls about single counts: a give-back ({@link Release}: per count its receipt and permits; the reply, the
 * permits given back), and the admin API's reading of a count ({@link Inspect}) and starting it afresh
 * ({@link Restart}).
 */
final class OneCountCall {

    private static final long NANOS_PER_MICRO = 1_000L;

    private OneCountCall() {
    }

    /** Gives back what limits {@code limits[from .. to)} of a decision spent, in one call: their counts share a slot. */
    static final class Release extends CountsCall<Long> {
        private final RateLimitDecision decision;
        private final int[] limits;
        private final int from;
        private final int n;

        Release(RedisRateLimitStore store, RateLimitDecision decision, int[] limits, int from, int to) {
            super(store, RELEASE, 1);
            this.decision = decision;
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
            sink.key(store.prefix(), request.key(i).partition(decision.partition()), Bound.of(request, i).suffix);
        }

        @Override
        int body() {
            return 2 * n;
        }

        @Override
        void writeBody(int j, ArgumentSink sink) {
            int i = limits[from + j / 2];
            sink.number(j % 2 == 0 ? store.micros(decision.outcome(i).receipt()) : decision.permits(i));
        }

        @Override
        Long decode(long[] reply, int count) {
            if (count != 1) {
                throw unexpected(reply, count);
            }
            return reply[0];
        }
    }

    /**
     * Reads the count of the request's first limit without writing: the script's acquire arguments, of that limit
     * spending one permit, not waiting, giving nothing back; the reply: permits left, reset, debt.
     */
    static final class Inspect extends CountsCall<CountState> {
        private final String partition;
        private final RateLimitRequest request;
        private final Bound bound;

        Inspect(RedisRateLimitStore store, String partition, RateLimitRequest request) {
            super(store, INSPECT, 3);
            this.partition = partition;
            this.request = request;
            this.bound = Bound.of(request, 0);
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

    /** Deletes the count of the request's first limit: every instance finds it missing, as new. */
    static final class Restart extends CountsCall<Void> {
        private final String partition;
        private final RateLimitRequest request;

        Restart(RedisRateLimitStore store, String partition, RateLimitRequest request) {
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
            sink.key(store.prefix(), request.key(0).partition(partition), Bound.of(request, 0).suffix);
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
}
