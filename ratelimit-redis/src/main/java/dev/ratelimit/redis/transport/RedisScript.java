package dev.ratelimit.redis.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script that ships with the store, with the SHA-1 that {@code EVALSHA} names it by, in text and in bytes; and
 * the same code as a Redis Function library (Redis 7 and later), whose one function {@code FCALL} calls.
 *
 * <p>Two ways to run it. As a script ({@code EVALSHA}), Redis runs the whole text on every call, making its local
 * functions anew each time; as a function library ({@code FUNCTION LOAD} once, then {@code FCALL}), they are made
 * once, when the library loads, which saves Redis a few microseconds per call. So the script's text ends with the
 * line {@code return run(KEYS, ARGV)}, and the library is the same text with that line replaced by the registration
 * of {@code run} under {@link #functionName()}. The library and its function are named after the script's SHA-1, so
 * that instances running different versions during a rolling deploy each call their own.
 *
 * <p>Immutable.
 *
 * @param name the resource's name
 * @param text the script
 * @param sha  its SHA-1, 40 hexadecimal digits
 */
public record RedisScript(String name, String text, String sha) {

    /** Decides a request's limits, gives back what a decision spent, reads or restarts one count. */
    public static final RedisScript COUNTS = load("counts.lua");

    /** The last line of a script that a function library can be made of. */
    static final String RUN = "return run(KEYS, ARGV)";

    /** The error Redis answers to {@code FCALL} of a function it does not have (Redis 7). */
    private static final String NO_FUNCTION = "ERR Function not found";
    /** The error Redis answers to {@code EVALSHA} of a script it does not have. */
    private static final String NO_SCRIPT = "NOSCRIPT";

    /** The name of the function library and of its one function: {@code ratelimit_} and 16 digits of the SHA-1. */
    public String functionName() {
        return "ratelimit_" + sha.substring(0, 16);
    }

    /** {@link #functionName()}'s ASCII bytes. */
    public byte[] functionNameBytes() {
        return functionName().getBytes(StandardCharsets.US_ASCII);
    }

    /** The text {@code FUNCTION LOAD} takes: the script as a library whose one function is {@link #functionName()}. */
    public String functionLibrary() {
        String body = text.stripTrailing();
        if (!body.endsWith(RUN)) {
            throw new IllegalStateException("ratelimit-redis: " + name + " does not end with " + RUN);
        }
        return "#!lua name=" + functionName() + "\n" + body.substring(0, body.length() - RUN.length())
                + "redis.register_function('" + functionName() + "', run)\n";
    }

    /**
     * True when {@code error}, an error Redis answered to {@code FUNCTION LOAD} of {@link #functionLibrary()}, means
     * that the library is there: an instance loaded it first.
     */
    public static boolean libraryLoaded(String error) {
        return error != null && error.contains("already exists");
    }

    /**
     * True when {@code error}, an error Redis answered to {@code EVALSHA} or {@code FCALL}, means that Redis does not
     * have the script or function (restarted, flushed, or a replica promoted without it): the call is sent again as
     * {@code EVAL}, which needs nothing loaded.
     */
    public static boolean missing(String error) {
        return error != null && (error.startsWith(NO_SCRIPT) || error.startsWith(NO_FUNCTION));
    }

    /** The script's UTF-8 bytes. */
    public byte[] textBytes() {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The SHA-1's ASCII bytes. */
    public byte[] shaBytes() {
        return sha.getBytes(StandardCharsets.US_ASCII);
    }

    private static RedisScript load(String resource) {
        try (InputStream in = RedisScript.class.getResourceAsStream("/dev/ratelimit/redis/internal/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("ratelimit-redis: " + resource + " is missing from the jar");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new RedisScript(resource, text, sha1(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(40);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >>> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
