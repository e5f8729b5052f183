package dev.ratelimit.redis.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script that ships with the store, with the SHA-1 that {@code EVALSHA} names it by, in text and in bytes.
 * Immutable.
 *
 * @param name the resource's name
 * @param text the script
 * @param sha  its SHA-1, 40 hexadecimal digits
 */
public record RedisScript(String name, String text, String sha) {

    /** Decides a request's limits, gives back what a decision spent, reads or restarts one count. */
    public static final RedisScript COUNTS = load("counts.lua");

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
