package dev.ratelimit.redis;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.redis.internal.JedisTransport;
import dev.ratelimit.redis.internal.LettuceTransport;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.internal.RedisUris;
import dev.ratelimit.redis.internal.ThreadRoutedTransport;
import dev.ratelimit.redis.internal.UnexpectedReply;
import dev.ratelimit.redis.transport.CountKeys;
import dev.ratelimit.redis.transport.RedisTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Counts in Redis, so that every instance of an application spends from one shared count (docs/stores.md, "Counting
 * across instances (Redis)"), with exactly the semantics of {@link InProcessRateLimitStore}, for every algorithm, any
 * number of permits, debt, shadow limits, live values, limits that wait for their permits and counts per application:
 * the same decisions, to the microsecond (this store's resolution).
 *
 * <p>One job: the store's contract on Redis, each call made one script call (one per slot on a cluster, when a
 * request spans two). The pieces a reader looks for under their own names are their own classes: a count key bound to
 * its Redis keys and script arguments ({@link BoundCountKey}), what a call sends and what its reply means
 * ({@link DecisionCall}, {@link GiveBackCall}, {@link InspectCall}, {@link RestartCall}, all a
 * {@link CountsScriptCall}), a request split over two slots ({@link SlotSplit}), the connection
 * ({@link RedisTransport}); the {@link RedisStoreBuilder} stays nested, as the public way to make one.
 *
 * <p>One call is one round trip: one Lua script ({@code counts.lua}; {@code EVALSHA}, {@code EVAL} only when Redis
 * does not know it yet) reads the server's clock, brings every count of the request up to date, decides them all
 * together (reserving permits at the instant the call goes, for limits that may wait), spends, and sets each count it
 * wrote to expire when it comes to hold nothing (its last permit's return, reserved ones included; a full bucket), so
 * that expiry loses nothing. A give-back is one call of the same script, and so are the admin API's reading of a count
 * ({@link #inspect}) and starting it afresh ({@link #restart}). Each count remembers the sizing tag of the request
 * that sized it ({@link RateLimitRequest#tag}, live values): a request with another tag re-sizes it first, in the same
 * script call, as the in-process store does. Keys: see {@link CountKeys}; all counts of one partition share one Redis
 * Cluster slot.
 *
 * <p>Announcements ({@link #announceTo}): a count that refuses is flagged by the script, and a give-back or
 * a restart of a flagged count publishes its key on the channel {@code <key-prefix>announcements}, which every
 * instance's store subscribes to on a connection of its own; so an engine can answer a refusal itself until it runs
 * out, and hears when another instance's give-back or reset ends it early.
 *
 * <p>Redis Cluster: a request that mixes counts per application (one count for every caller, under the partition
 * {@code application}) with counts per caller spans two slots, and no script may touch two. Keeping both kinds in
 * one slot would put every count of the application in it, so such a request (only with
 * {@link RedisStoreBuilder#cluster(boolean) cluster} on; a single Redis takes any keys in one script) is decided in one call
 * per slot, sequenced so that it is still all or nothing and goes at one instant ({@link SlotSplit}): a refusal by
 * the second part gives the first part's permits back, and a second part that goes later moves the first part's
 * permits to its instant. A request whose counts share a slot, which is every request without both kinds, is one
 * call as always.
 *
 * <p>Failures: a call that Redis does not answer within the timeout fails (commands never pile up behind a Redis that
 * hangs); while disconnected, calls fail at once. Under the engine, give this store a timeout longer than the
 * engine's own, so that an answer arriving after the engine gave up still reaches the engine, which then gives its
 * permits back. The engine's failure policy ({@code ratelimit.store.on-failure}) decides what a request then gets, and
 * logs the outage. The transport reconnects by itself; an application never needs a restart.
 *
 * <p>Thread-safe and non-blocking: every field is final but the channel, set once; a handle ({@link #bind}) is
 * immutable but for caches, each replaced whole. Calls complete on the transport's threads, and nothing done there
 * blocks. Close it to release the transport (Lettuce's connections and threads).
 */
public final class RedisRateLimitStore implements RateLimitStore, AutoCloseable {

    /** The timeout when none is given: the default of {@code ratelimit.store.timeout-millis}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);

    /** The name of the channel of announcements, after the key prefix. */
    public static final String ANNOUNCEMENTS = "announcements";
    /** The name of the key of {@code ratelimit.key-secret}'s fingerprint, after the key prefix. */
    public static final String KEY_SECRET_FINGERPRINT = "key-secret-fingerprint";
    /** What {@link #now()} answers when Redis' clock counts. */
    static final long SERVER_CLOCK = Long.MIN_VALUE;

    private static final long NANOS_PER_MICRO = 1_000L;
    /** With a manual clock, real time must not expire counts that manual time still needs. */
    static final long TEST_EXPIRY_PADDING_MILLIS = 3_600_000L;

    private final String description;
    private final RedisKeys keys;
    private final byte[] prefix;
    private final RedisTransport transport;
    private final LongSupplier testClock;
    private final long origin;
    private final long padding;
    private final boolean cluster;
    private final int mostMoves;
    /** The channel of announcements, once an engine listens; empty: nothing flagged, nothing published. */
    private volatile byte[] channel = CountsScriptCall.EMPTY;
    /** Messages on the channel of announcements that were no count's key: ignored. */
    private final AtomicLong malformedAnnouncements = new AtomicLong();

    RedisRateLimitStore(RedisStoreBuilder b) {
        this.keys = new RedisKeys(b.keyPrefix);
        this.prefix = b.keyPrefix.getBytes(StandardCharsets.UTF_8);
        this.testClock = b.nanoClock;
        this.origin = testClock == null ? 0 : testClock.getAsLong();
        this.padding = testClock == null ? 0 : b.expiryPaddingMillis;
        this.cluster = b.cluster;
        this.mostMoves = b.mostMoves;
        this.transport = b.transport != null ? b.transport : transport(b);
        this.description = "RedisRateLimitStore(" + b.where + ", cluster=" + b.cluster
                + ", client=" + clientName(transport) + ", timeout-millis=" + b.timeout.toMillis()
                + ", key-prefix=" + b.keyPrefix + (testClock == null ? "" : ", manual clock") + ")";
    }

    /** The transport {@link RedisStoreBuilder#client} chooses; Lettuce for Sentinel, which Jedis is not used with here. */
    private static RedisTransport transport(RedisStoreBuilder b) {
        if (b.client == Client.LETTUCE || !b.uri.getSentinels().isEmpty()) {
            return new LettuceTransport(b.uri, b.cluster, b.timeout);
        }
        JedisTransport jedis = new JedisTransport(b.uri, b.cluster, b.blockingTimeout == null ? b.timeout : b.blockingTimeout);
        return new ThreadRoutedTransport(jedis, new LettuceTransport(b.uri, b.cluster, b.timeout), b.client == Client.JEDIS);
    }

    private static String clientName(RedisTransport transport) {
        return transport instanceof LettuceTransport ? "lettuce"
                : transport instanceof ThreadRoutedTransport routed ? routed.toString() : transport.getClass().getSimpleName();
    }

    /**
     * Which client carries the store's calls ({@code ratelimit.redis.client}).
     */
    public enum Client {
        /**
         * Jedis for calls made on a thread that may block (a request thread of Jersey on Grizzly, Open Liberty,
         * Payara): that thread writes the call and reads its answer, with no hand-off; Lettuce for calls made on a
         * thread that must not block (an event loop, a fork-join pool where asynchronous stages go on), and for
         * announcements. The default.
         */
        AUTO,
        /** Jedis for every call; Lettuce for announcements only. */
        JEDIS,
        /** Lettuce for everything: one connection that pipelines, with I/O threads of its own. */
        LETTUCE
    }

    /**
     * Which client carries the calls: {@code lettuce}, {@code jedis}, {@code jedis+lettuce} ({@link Client#AUTO}), or
     * the class of a transport given to {@link #builder(RedisTransport, String)}.
     */
    public String client() {
        return clientName(transport);
    }

    /**
     * A builder for a store on the Redis at {@code uri} ({@code redis://[password@]host[:port][/database]},
     * {@code rediss://...} for TLS, {@code redis-sentinel://host:port[,host:port]#master}), through Lettuce.
     *
     * @throws IllegalArgumentException when {@code uri} is not a Redis URI (the message hides the password)
     */
    public static RedisStoreBuilder builder(String uri) {
        return new RedisStoreBuilder(uri, null, null);
    }

    /**
     * A builder for a store that reaches Redis through {@code transport} (for instance the Quarkus Redis client's);
     * {@code where} says where that is, for logs (never a password).
     */
    public static RedisStoreBuilder builder(RedisTransport transport, String where) {
        return new RedisStoreBuilder(null, transport, where);
    }

    /** Prepares the key's part of every count key, and the script's code for its algorithm. */
    @Override
    public Object bind(CountKey key) {
        return new BoundCountKey(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        if (cluster && !SlotSplit.oneSlot(request)) {
            return SlotSplit.decide(this, partition, request, multiple, mostMoves);
        }
        DecisionCall.Whole call = new DecisionCall.Whole(this, partition, request, multiple);
        transport.send(call);
        return call;
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
        DecisionCall.Part call = new DecisionCall.Part(this, partition, request, multiple, limits, floorNanos, spend, giveBack);
        transport.send(call);
        return call;
    }

    /** One call gives back every permit the decision spent (charges excepted), each to where it was spent. */
    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        return releaseCounting(decision).thenApply(given -> null);
    }

    /** One call gives back {@code multiple} of the decision's multiple from each limit it spent: a slice's unused part. */
    @Override
    public CompletionStage<Void> release(RateLimitDecision decision, int multiple) {
        if (multiple < 1 || multiple > decision.multiple()) {
            throw new IllegalArgumentException("multiple must be within 1 .. " + decision.multiple() + ", was " + multiple);
        }
        return releaseCounting(decision, multiple).thenApply(given -> null);
    }

    /** Gives back part of a decision; the script announces every restart. */
    @Override
    public boolean slices() {
        return true;
    }

    /**
     * {@link #release}, completing with the number of permits given back (those that had returned already,
     * or whose count was sized anew since, are not counted). On a cluster, the permits of a request that spanned
     * two slots go back in one call per slot.
     */
    CompletionStage<Long> releaseCounting(RateLimitDecision decision) {
        return releaseCounting(decision, decision.multiple());
    }

    /** {@link #releaseCounting(RateLimitDecision)} of {@code multiple} of the decision's multiple. */
    CompletionStage<Long> releaseCounting(RateLimitDecision decision, int multiple) {
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
        if (!cluster || SlotSplit.oneSlot(request, limits, spent)) {
            return giveBack(decision, multiple, limits, 0, spent);
        }
        return SlotSplit.giveBack(this, decision, multiple, limits, spent);
    }

    /** One call that gives back what limits {@code limits[from .. to)} of {@code decision} spent, sharing a slot. */
    CompletableFuture<Long> giveBack(RateLimitDecision decision, int multiple, int[] limits, int from, int to) {
        GiveBackCall call = new GiveBackCall(this, decision, multiple, limits, from, to);
        transport.send(call);
        return call;
    }

    /**
     * One round trip: the script reads the count of the request's first limit (re-sized as a request would find it)
     * and writes nothing.
     */
    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        InspectCall call = new InspectCall(this, partition, request);
        transport.send(call);
        return call;
    }

    /** Deletes the count's key: every instance finds it missing, as new; announced when the count had refused. */
    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        RestartCall call = new RestartCall(this, partition, request);
        transport.send(call);
        return call;
    }

    /**
     * Subscribes to the channel of announcements ({@code <key-prefix>announcements}) on a connection of its own, and
     * from now on has the script flag refusing counts and announce their give-backs and restarts there. The listener
     * hears {@code anyMayHaveGained} each time the subscription is in place (the first time, and after a
     * reconnection). A message that is not the key of a count (a limit's name and plan) is counted
     * ({@link #malformedAnnouncements()}) and ignored, logged at most once a minute.
     */
    @Override
    public boolean announceTo(CountListener listener) {
        String name = keys.prefix() + ANNOUNCEMENTS;
        boolean subscribing = transport.subscribe(name,
                new AnnouncementReader(keys.prefix(), name, listener, malformedAnnouncements),
                listener::anyMayHaveGained);
        if (subscribing) {
            channel = name.getBytes(StandardCharsets.UTF_8);
        }
        return subscribing;
    }

    /**
     * How many messages on the channel of announcements were ignored since the store was built: not the key of a count
     * (garbage, forged, another application's text), or longer than any key.
     */
    public long malformedAnnouncements() {
        return malformedAnnouncements.get();
    }

    /**
     * {@code SET <key-prefix>key-secret-fingerprint <fingerprint> NX} (no expiry), then the value kept: the first
     * instance to start leaves its fingerprint, every later one compares. The key is outside every count's hash tag
     * and no count's key; removing it (or flushing Redis) lets the next instance to start leave its own.
     */
    @Override
    public CompletionStage<String> keySecretFingerprint(String fingerprint) {
        return transport.setIfAbsent(keys.prefix() + KEY_SECRET_FINGERPRINT, fingerprint);
    }

    /** True unless Redis answered (an error, or a reply its script never gives): an I/O failure, no connection, no answer in time. */
    @Override
    public boolean unreachable(Throwable failure) {
        return failure instanceof TimeoutException
                || !(failure instanceof UnexpectedReply) && transport.unreachable(failure);
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
            transport.connected().toCompletableFuture().get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Releases the transport: its connections, and Lettuce's threads. */
    @Override
    public void close() {
        transport.close();
    }

    @Override
    public String toString() {
        return description;
    }

    // ------------------------------------------------------------------ what calls write

    byte[] prefix() {
        return prefix;
    }

    long padding() {
        return padding;
    }

    byte[] channel() {
        return channel;
    }

    /** The manual clock's reading in microseconds since this store was built; {@link #SERVER_CLOCK}: Redis' clock. */
    long now() {
        return testClock == null ? SERVER_CLOCK : Math.floorDiv(testClock.getAsLong() - origin, NANOS_PER_MICRO);
    }

    /** A receipt, in nanoseconds on this store's clock, as the script's microseconds. */
    long micros(long receipt) {
        return Math.floorDiv(receipt - origin, NANOS_PER_MICRO);
    }

    /** The script's microseconds of a receipt, as nanoseconds on this store's clock. */
    long receipt(long micros) {
        return micros * NANOS_PER_MICRO + origin;
    }
}
