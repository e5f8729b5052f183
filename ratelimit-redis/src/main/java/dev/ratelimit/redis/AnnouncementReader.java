package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitStore.CountListener;
import dev.ratelimit.redis.transport.CountKeys;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What the store does with each message on its channel of announcements: the key of a count names that count to the
 * engine (a limit this instance does not declare, of another version of the application, finds nothing remembered
 * there); anything else (no count's key, a name or plan that is no limit name, garbage bytes, a message longer than
 * any key) is counted ({@link RedisRateLimitStore#malformedAnnouncements()}) and ignored,
 * logged the first time and then at most once a minute, never thrown: an exception would reach the Redis client,
 * which logs a stack trace per message on every instance. Whoever can publish on the channel can make an instance
 * forget a refusal it remembered (its next request asks Redis, which still counts), nothing more: docs/stores.md,
 * "What each request costs, and what is remembered locally".
 *
 * <p>Thread-safe: the count and the instant of the next warning are atomics, and the warning is written by whoever
 * moves that instant.
 */
final class AnnouncementReader implements Consumer<String> {

    /** Longer than any count's key can be: the store digests nothing, but no partition a client sends comes near. */
    static final int LONGEST = 65_536;
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final System.Logger LOG = System.getLogger("dev.ratelimit.redis");

    private final String prefix;
    private final String channel;
    private final CountListener listener;
    private final AtomicLong malformed;
    private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());

    /** @param malformed the store's count of messages ignored */
    AnnouncementReader(String prefix, String channel, CountListener listener, AtomicLong malformed) {
        this.prefix = prefix;
        this.channel = channel;
        this.listener = listener;
        this.malformed = malformed;
    }

    @Override
    public void accept(String message) {
        String problem;
        if (message == null || message.length() > LONGEST) {
            problem = "longer than any count's key";
        } else {
            String[] count;
            try {
                count = CountKeys.parse(prefix, message);
            } catch (RuntimeException e) {
                count = null;
            }
            if (count == null) {
                problem = "not the key of a count";
            } else if (!RateLimitPolicy.NAME.matcher(count[1]).matches()
                    || count[2] != null && !RateLimitPolicy.NAME.matcher(count[2]).matches()) {
                problem = "a limit's name or plan that is no name";
            } else {
                try {
                    listener.gained(count[1], count[2], count[0]);
                    return;
                } catch (RuntimeException e) {
                    problem = "the engine could not take it (" + e.getClass().getName() + ")";
                }
            }
        }
        ignored(problem, message == null ? 0 : message.length());
    }

    private void ignored(String problem, int length) {
        long total = malformed.incrementAndGet();
        long now = System.nanoTime();
        long due = nextWarning.get();
        if (now - due >= 0 && nextWarning.compareAndSet(due, now + WARN_EVERY_NANOS)) {
            // the message itself is not written: anyone who can publish chooses it
            LOG.log(Level.WARNING, "ratelimit: ignored a message of " + length + " characters on the channel of "
                    + "announcements " + channel + ": " + problem + " (" + total + " ignored so far; at most one "
                    + "such line a minute). Another application or version on the same key prefix, or someone "
                    + "publishing there: the channel must be as protected as the Redis server itself");
        }
    }
}
