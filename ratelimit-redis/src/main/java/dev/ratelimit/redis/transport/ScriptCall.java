package dev.ratelimit.redis.transport;

/**
 * One call of a script, as a {@link RedisTransport} sends it: {@code EVALSHA <sha> <keys> <key>... <argument>...}.
 * The call writes its keys and arguments itself, into whatever the transport encodes them with (so that nothing is
 * turned into text first), and takes its reply, whose elements are integers: one integer, or an array of them.
 * Written once per time it is sent; completed once.
 */
public interface ScriptCall {

    /** The script. */
    RedisScript script();

    /** How many keys ({@code KEYS}). */
    int keys();

    /** How many arguments ({@code ARGV}). */
    int arguments();

    /** Writes key {@code i} (0-based) into {@code sink}. */
    void writeKey(int i, ArgumentSink sink);

    /** Writes argument {@code i} (0-based) into {@code sink}. */
    void writeArgument(int i, ArgumentSink sink);

    /**
     * Where the integers of the reply go, in order (an integer reply is one element); its length is the most the
     * call expects. The transport writes into it, then calls {@link #replied}.
     */
    long[] reply();

    /**
     * Redis answered: the first {@code count} elements of {@link #reply()} hold the reply ({@code -1}: the reply had
     * more elements than that array holds, or one that is not an integer).
     */
    void replied(int count);

    /** The call failed: Redis answered an error, or could not be reached. */
    void failed(Throwable failure);
}
