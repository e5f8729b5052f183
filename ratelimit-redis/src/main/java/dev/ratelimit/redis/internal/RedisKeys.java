package dev.ratelimit.redis.internal;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.redis.transport.CountKeys;

/**
 * The key of the count of (name, plan, partition): {@code <prefix>{<n>:<partition>}<name>[/<plan>]},
 * where {@code n} is the partition's length in UTF-8 bytes; e.g. {@code ratelimit:{13:X-Api-Key:abc}burst}
 * for callers in no plan, {@code ratelimit:{13:X-Api-Key:abc}burst/gold} for the plan {@code gold}. The one count
 * of a key {@linkplain CountKey#perApplication() per application} is that of the partition {@code application}
 * ({@link CountKey#partition}), e.g. {@code ratelimit:{11:application}partner}, as in the in-process store.
 *
 * <ul>
 *   <li>No forgery, no collision: the length says where the partition ends, whatever it contains
 *       ({@code :}, braces, nothing at all), and names and plans are made of {@code [A-Za-z0-9._-]}
 *       (no brace, no slash); so a key determines its (name, plan, partition), and two different
 *       triples never share a count. A partition that is not
 *       well-formed UTF-16 (a lone surrogate, which UTF-8 cannot carry) is written as {@code x} and
 *       four hex digits per char instead; that form starts with a letter, the other with a digit.</li>
 *   <li>Redis Cluster: the hash tag is the text between the first <code>{</code> (ours: a prefix may
 *       not contain braces) and the next <code>}</code>. It depends on the partition alone and is never
 *       empty, so all counts of one partition live in one slot, and one script can touch them all. A request
 *       that mixes counts per application with counts per caller spans two slots (every count per application
 *       shares the tag {@link #APPLICATION_TAG}, so never more than two): see {@code RedisRateLimitStore}.</li>
 * </ul>
 * Immutable.
 */
public final class RedisKeys {

    /** Default of {@code ratelimit.redis.key-prefix}. */
    public static final String DEFAULT_PREFIX = "ratelimit:";

    /** The hash tag of every count per application: that of the partition {@value CountKey#APPLICATION}. */
    public static final String APPLICATION_TAG = tag(CountKey.APPLICATION);

    private final String prefix;

    /** @throws IllegalArgumentException when the prefix contains a brace (it would take over the hash tag) */
    public RedisKeys(String prefix) {
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("must not contain '{' or '}'");
        }
        this.prefix = prefix;
    }

    public String prefix() {
        return prefix;
    }

    /** The hash tag that every count of the partition carries, braces included ({@link CountKeys#tag}). */
    public static String tag(String partition) {
        return CountKeys.tag(partition);
    }

    /** What follows the {@link #tag} in the keys of a {@link CountKey}'s counts: {@code name} or {@code name/plan}. */
    public static String suffix(CountKey key) {
        return key.plan() == null ? key.name() : key.name() + '/' + key.plan();
    }

    /** The key of a count: a partition's {@link #tag}, then the {@link #suffix} of its {@link CountKey}. */
    public String key(String tag, String suffix) {
        return prefix + tag + suffix;
    }
}
