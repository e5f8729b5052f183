package dev.ratelimit.redis;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.redis.internal.RedisConnector;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.internal.RedisUris;
import dev.ratelimit.redis.internal.Script;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Counts in Redis, so that every instance of an application spends from one shared count (SPEC 7), with
 * exactly the semantics of {@link InProcessRateLimitStore}, for every algorithm, any number of permits, debt,
 * shadow limits, limits that wait for their permits and counts per application (SPEC 15, 17, 20): the same
 * decisions, to the microsecond (this store's resolution).
 *
 * <p>One call is one round trip: one Lua script ({@code EVALSHA}; {@code EVAL} only when Redis does not know
 * it yet) reads the server's clock, brings every count of the request up to date, decides them all
 * together (reserving permits at the instant the call goes, for limits that may wait), spends, and sets each
 * count it wrote to expire when it comes to hold nothing (its last permit's return, reserved ones included; a
 * full bucket), so that expiry loses nothing. A give-back is one call of the same script.
 * Keys: see {@link RedisKeys}; all counts of one partition share one Redis Cluster slot.
 *
 * <p>Redis Cluster: a request that mixes counts per application (one count for every caller, under the partition
 * {@code application}) with counts per caller spans two slots, and no script may touch two. Keeping both kinds in
 * one slot would put every count of the application in it, so such a request (only with
 * {@link Builder#cluster(boolean) cluster} on; a single Redis takes any keys in one script) is decided in one call
 * per slot, sequenced so that it is still all or nothing and goes at one instant ({@link SlotSplit}): a refusal by
 * the second part gives the first part's permits back, and a second part that goes later moves the first part's
 * permits to its instant. A request whose counts share a slot, which is every request without both kinds, is one
 * call as always.
 *
 * <p>Failures: a call that Redis does not answer within the timeout fails (Lettuce's command timeout is
 * the timeout: commands never pile up behind a Redis that hangs); while disconnected, calls fail at once.
 * Under the engine, give this store a timeout longer than the engine's own, so that an answer arriving after
 * the engine gave up still reaches the engine, which then gives its permits back.
 * The engine's failure policy ({@code ratelimit.store.on-failure}) decides what a request then gets, and
 * logs the outage. Lettuce reconnects by itself; an application never needs a restart.
 *
 * <p>Thread-safe and non-blocking: every field is final (Lettuce's connection is thread-safe); a handle
 * ({@link #bind}) is immutable but for a cache of the last policy's arguments, replaced whole. Stages
 * complete on Lettuce's threads, and nothing done there blocks. Close it to release the connection and
 * the client's threads.
 */
public final class RedisRateLimitStore implements RateLimitStore, AutoCloseable {

    /** The timeout when none is given: the default of {@code ratelimit.store.timeout-millis}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);

    /** Microseconds in one step of a one-second window: a step is an eighth of the window. */
    private static final long MICROS_PER_STEP_SECOND = 125_000L;
    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long LONGEST_WAIT_MICROS = 1L << 52;
    /** With a manual clock, real time must not expire counts that manual time still needs. */
    private static final long TEST_EXPIRY_PADDING_MILLIS = 3_600_000L;
    private static final String ACQUIRE = "a";
    /** Decide only: the script's acquire, spending nothing (a part of a split request that cannot go). */
    private static final String DECIDE = "d";
    private static final String RELEASE = "r";
    private static final int HEADER_FIELDS = 4;
    private static final int LIMIT_FIELDS = 6;
    private static final int REPLY_FIELDS = 6;
    private static final State[] STATES = {State.SPENT, State.UNSPENT, State.REFUSED};

    private final String description;
    private final RedisKeys keys;
    private final RedisConnector connector;
    private final LongSupplier testClock;
    private final long origin;
    private final String padding;
    private final boolean cluster;
    private final int mostMoves;

    private RedisRateLimitStore(Builder b) {
        this.keys = new RedisKeys(b.keyPrefix);
        this.testClock = b.nanoClock;
        this.origin = testClock == null ? 0 : testClock.getAsLong();
        this.padding = Long.toString(testClock == null ? 0 : b.expiryPaddingMillis);
        this.cluster = b.cluster;
        this.mostMoves = b.mostMoves;
        this.description = "RedisRateLimitStore(uri=" + RedisUris.redact(b.uriText) + ", cluster=" + b.cluster
                + ", timeout-millis=" + b.timeout.toMillis() + ", key-prefix=" + b.keyPrefix
                + (testClock == null ? "" : ", manual clock") + ")";
        this.connector = new RedisConnector(b.uri, b.cluster, b.timeout);
    }

    /**
     * A builder for a store on the Redis at {@code uri} ({@code redis://[password@]host[:port][/database]},
     * {@code rediss://...} for TLS, {@code redis-sentinel://host:port[,host:port]#master}).
     *
     * @throws IllegalArgumentException when {@code uri} is not a Redis URI (the message hides the password)
     */
    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    /** Prepares the key's part of every count key, and the script's code for its algorithm. */
    @Override
    public Object bind(CountKey key) {
        return new Bound(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        String[] tags = tags(partition, request);
        if (cluster && !oneSlot(tags, null, request.size())) {
            return new SlotSplit(this, partition, request, multiple, tags, mostMoves).decide();
        }
        return call(partition, request, multiple, null, tags, 0, true, null)
                .thenApply(outcomes -> RateLimitDecision.ofArray(partition, request, multiple, outcomes));
    }

    /**
     * One script call that decides some limits of a request, whose counts share a slot.
     *
     * @param limits     the limits, as indices into the request; null: all of them, in order
     * @param tags       each limit's hash tag ({@link #tags})
     * @param floorNanos how long from now the call goes at the soonest (a multiple of a microsecond; 0: at once)
     * @param spend      false: decide, but spend nothing (each outcome unspent or refused)
     * @param giveBack   outcomes of an earlier call over the same limits whose permits go back first (the receipts of
     *                   those spent); null: none
     * @return the outcomes of {@code limits}, in their order
     */
    CompletableFuture<Outcome[]> call(String partition, RateLimitRequest request, int multiple, int[] limits,
                                      String[] tags, long floorNanos, boolean spend, Outcome[] giveBack) {
        int n = limits == null ? request.size() : limits.length;
        String[] keyArray = new String[n];
        String[] args = new String[HEADER_FIELDS + LIMIT_FIELDS * n];
        args[0] = spend ? ACQUIRE : DECIDE;
        args[1] = now();
        args[2] = padding;
        args[3] = floorNanos == 0 ? "0" : Long.toString(floorNanos / NANOS_PER_MICRO);
        for (int k = 0; k < n; k++) {
            int i = limits == null ? k : limits[k];
            Bound bound = bound(request, i);
            PolicyArgs policy = bound.args(request.policy(i));
            long maxWait = request.maxWaitNanos(i);
            int at = HEADER_FIELDS + LIMIT_FIELDS * k;
            keyArray[k] = keys.key(tags[i], bound.suffix);
            args[at] = bound.codes[request.kind(i).ordinal()];
            args[at + 1] = policy.limit;
            args[at + 2] = policy.size;
            args[at + 3] = Long.toString((long) request.cost(i) * multiple);
            // rounded down to whole microseconds: grants fall on whole microseconds, so none is lost; a double holds
            // them exactly up to 2^53, and a wait of 2^52 (142 years) is as good as any longer one
            args[at + 4] = maxWait == 0 ? "0" : Long.toString(Math.min(maxWait / NANOS_PER_MICRO, LONGEST_WAIT_MICROS));
            args[at + 5] = giveBack == null || giveBack[k].receipt() == RateLimitDecision.NO_RECEIPT
                    ? "" : micros(giveBack[k].receipt());
        }
        return this.<List<Object>>run(ScriptOutputType.MULTI, keyArray, args)
                .thenApply(reply -> outcomes(request, limits, n, reply));
    }

    /** One call gives back every permit the decision spent (charges excepted), each to where it was spent. */
    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        return releaseCounting(decision).thenApply(given -> null);
    }

    /**
     * {@link #release}, completing with the number of permits given back (those that had returned already,
     * or whose count was sized anew since, are not counted). On a cluster, the permits of a request that spanned
     * two slots go back in one call per slot.
     */
    CompletionStage<Long> releaseCounting(RateLimitDecision decision) {
        RateLimitRequest request = decision.request();
        int[] limits = new int[decision.size()];
        int spent = 0;
        for (int i = 0; i < decision.size(); i++) {
            if (givesBack(decision, i)) {
                limits[spent++] = i;
            }
        }
        if (spent == 0) {
            return CompletableFuture.completedFuture(0L);
        }
        String[] tags = tags(decision.partition(), request);
        if (!cluster || oneSlot(tags, limits, spent)) {
            return giveBack(decision, tags, limits, 0, spent);
        }
        int[] grouped = new int[spent];
        int application = 0;
        for (int k = 0; k < spent; k++) {
            if (RedisKeys.APPLICATION_TAG.equals(tags[limits[k]])) {
                grouped[application++] = limits[k];
            }
        }
        for (int k = 0, other = application; k < spent; k++) {
            if (!RedisKeys.APPLICATION_TAG.equals(tags[limits[k]])) {
                grouped[other++] = limits[k];
            }
        }
        return giveBack(decision, tags, grouped, 0, application)
                .thenCombine(giveBack(decision, tags, grouped, application, spent), Long::sum);
    }

    /** One script call giving back what limits {@code limits[from .. to)} of the decision spent. */
    private CompletableFuture<Long> giveBack(RateLimitDecision decision, String[] tags, int[] limits, int from, int to) {
        String[] keyArray = new String[to - from];
        String[] args = new String[3 + 2 * (to - from)];
        args[0] = RELEASE;
        args[1] = now();
        args[2] = padding;
        for (int k = 0; k < to - from; k++) {
            int i = limits[from + k];
            keyArray[k] = keys.key(tags[i], bound(decision.request(), i).suffix);
            args[3 + 2 * k] = micros(decision.outcome(i).receipt());
            args[4 + 2 * k] = Long.toString(decision.permits(i));
        }
        return run(ScriptOutputType.INTEGER, keyArray, args);
    }

    /**
     * The hash tag of each limit's count: the partition's, or for a count per application {@link
     * RedisKeys#APPLICATION_TAG}.
     */
    private static String[] tags(String partition, RateLimitRequest request) {
        int n = request.size();
        String[] tags = new String[n];
        String caller = null;
        for (int i = 0; i < n; i++) {
            if (bound(request, i).key.perApplication()) {
                tags[i] = RedisKeys.APPLICATION_TAG;
            } else {
                if (caller == null) {
                    caller = RedisKeys.tag(partition);
                }
                tags[i] = caller;
            }
        }
        return tags;
    }

    /** True when the counts of {@code limits[0 .. n)} (null: the first n limits) share one tag, so one slot. */
    private static boolean oneSlot(String[] tags, int[] limits, int n) {
        String first = tags[limits == null ? 0 : limits[0]];
        for (int k = 1; k < n; k++) {
            if (!first.equals(tags[limits == null ? k : limits[k]])) {
                return false;
            }
        }
        return true;
    }

    private static boolean givesBack(RateLimitDecision decision, int i) {
        Outcome outcome = decision.outcome(i);
        return outcome.state() == State.SPENT && decision.request().kind(i) != Kind.CHARGE
                && outcome.receipt() != RateLimitDecision.NO_RECEIPT;
    }

    @Override
    public String storeName() {
        return "redis";
    }

    /**
     * Waits until the connection is up and the script is loaded, at most {@code wait}: for start-up, so that
     * the first requests do not pay for connecting. The store works either way: it keeps trying to connect.
     *
     * @return whether Redis is connected
     */
    public boolean awaitConnection(Duration wait) {
        try {
            connector.connected().get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Releases the connection and Lettuce's threads. */
    @Override
    public void close() {
        connector.close();
    }

    @Override
    public String toString() {
        return description;
    }

    private static Bound bound(RateLimitRequest request, int i) {
        return request.handle(i) instanceof Bound b ? b : new Bound(request.key(i));
    }

    private <T> CompletableFuture<T> run(ScriptOutputType type, String[] keyArray, String[] args) {
        try {
            return connector.eval(Script.COUNTS, type, keyArray, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The manual clock's reading in microseconds since this store was built; empty: the server's clock. */
    private String now() {
        return testClock == null ? "" : Long.toString(Math.floorDiv(testClock.getAsLong() - origin, NANOS_PER_MICRO));
    }

    /** A receipt, in nanoseconds on this store's clock, as the script's microseconds. */
    private String micros(long receipt) {
        return Long.toString(Math.floorDiv(receipt - origin, NANOS_PER_MICRO));
    }

    private Outcome[] outcomes(RateLimitRequest request, int[] limits, int n, List<Object> reply) {
        if (reply == null || reply.size() != REPLY_FIELDS * n) {
            throw new IllegalStateException("ratelimit: unexpected reply from " + Script.COUNTS.name() + ": " + reply);
        }
        Outcome[] outcomes = new Outcome[n];
        for (int k = 0; k < n; k++) {
            int at = REPLY_FIELDS * k;
            long state = number(reply.get(at));
            long reset = number(reply.get(at + 2));
            long receipt = number(reply.get(at + 4));
            outcomes[k] = new Outcome(request.policy(limits == null ? k : limits[k]), STATES[(int) state],
                    (int) number(reply.get(at + 1)), reset < 0 ? -1 : reset * NANOS_PER_MICRO,
                    number(reply.get(at + 3)) * NANOS_PER_MICRO,
                    receipt < 0 ? RateLimitDecision.NO_RECEIPT : receipt * NANOS_PER_MICRO + origin,
                    number(reply.get(at + 5)) * NANOS_PER_MICRO);
        }
        return outcomes;
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }

    /**
     * The store's handle on the counts of one {@link CountKey}: the end of their keys and the script's code
     * of their algorithm for each kind, made once at deployment. Immutable but for {@code last}, a cache of
     * the arguments of the last policy seen (limits sharing a name may differ in size), replaced whole.
     */
    private static final class Bound {
        final CountKey key;
        final String suffix;
        final String[] codes;
        volatile PolicyArgs last;

        Bound(CountKey key) {
            this.key = key;
            this.suffix = RedisKeys.suffix(key);
            String algorithm = switch (key.algorithm()) {
                case SLIDING_WINDOW -> "s";
                case STRICT_WINDOW -> "t";
                case TOKEN_BUCKET -> "b";
            };
            Kind[] kinds = Kind.values();
            this.codes = new String[kinds.length];
            for (Kind kind : kinds) {
                codes[kind.ordinal()] = algorithm + switch (kind) {
                    case ACQUIRE -> "a";
                    case SHADOW -> "s";
                    case CHARGE -> "c";
                };
            }
        }

        PolicyArgs args(RateLimitPolicy policy) {
            PolicyArgs args = last;
            if (args == null || args.policy != policy) {
                args = new PolicyArgs(policy);
                last = args;
            }
            return args;
        }

        @Override
        public String toString() {
            return "RedisRateLimitStore.Bound[" + key + "]";
        }
    }

    /**
     * What the script needs of a policy, as text: the permit limit, and the step of a window (an eighth of it)
     * or the interval of a bucket ({@code ceil(window / permitLimit)}), in microseconds.
     */
    private static final class PolicyArgs {
        final RateLimitPolicy policy;
        final String limit;
        final String size;

        PolicyArgs(RateLimitPolicy policy) {
            this.policy = policy;
            this.limit = Integer.toString(policy.permitLimit());
            long size = policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET
                    ? (policy.windowSeconds() * MICROS_PER_SECOND + policy.permitLimit() - 1) / policy.permitLimit()
                    : policy.windowSeconds() * MICROS_PER_STEP_SECOND;
            this.size = Long.toString(size);
        }
    }

    /** Options of a {@link RedisRateLimitStore}; not thread-safe. */
    public static final class Builder {

        private final String uriText;
        private final RedisURI uri;
        private boolean cluster;
        private Duration timeout = DEFAULT_TIMEOUT;
        private String keyPrefix = RedisKeys.DEFAULT_PREFIX;
        private LongSupplier nanoClock;
        private long expiryPaddingMillis = TEST_EXPIRY_PADDING_MILLIS;
        private int mostMoves = SlotSplit.MOST_MOVES;

        private Builder(String uri) {
            this.uri = RedisUris.parse(uri);
            this.uriText = uri;
        }

        /** Talk the Redis Cluster protocol, the URI naming a seed node. Default false. */
        public Builder cluster(boolean cluster) {
            this.cluster = cluster;
            return this;
        }

        /**
         * The longest Redis may take to answer a command, positive: commands never pile up behind a Redis that
         * hangs. Under the engine, longer than its {@code ratelimit.store.timeout-millis} (see the class
         * comment). Default 250 ms.
         */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Text in front of every key; without braces. Default {@value RedisKeys#DEFAULT_PREFIX}. */
        public Builder keyPrefix(String keyPrefix) {
            new RedisKeys(keyPrefix);
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * For tests only: take time from this monotonic nanosecond clock (a manual clock, read at the store's
         * resolution of a microsecond) instead of the Redis server's clock, and keep counts an hour longer than
         * they need, since real time passes while manual time stands still.
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
            return this;
        }

        /** With a {@link #nanoClock}: how much longer than they need counts are kept (the expiry tests take 0). */
        Builder expiryPaddingMillis(long millis) {
            this.expiryPaddingMillis = millis;
            return this;
        }

        /** On a cluster: how often a split request's parts may move before it gives up (tests take 0). */
        Builder mostMoves(int moves) {
            this.mostMoves = moves;
            return this;
        }

        /** Starts connecting in the background; never fails because Redis is unreachable. */
        public RedisRateLimitStore build() {
            return new RedisRateLimitStore(this);
        }
    }
}
