package dev.ratelimit.redis.transport;

/** What a {@link ScriptCall} writes one key or argument into: each call of a method is one whole argument. */
public interface ArgumentSink {

    /** Bytes as they are. */
    void bytes(byte[] value);

    /** An integer, in decimal. */
    void number(long value);

    /**
     * The key of a count: {@code prefix}, the hash tag of {@code partition} ({@link CountKeys#tag}), {@code suffix}.
     * See {@link CountKeys#key} for the bytes.
     */
    void key(byte[] prefix, String partition, byte[] suffix);
}
