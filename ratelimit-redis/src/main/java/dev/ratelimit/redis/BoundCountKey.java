package dev.ratelimit.redis;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.internal.RedisKeys;
import java.nio.charset.StandardCharsets;

/**
 * A count key bound to its Redis keys and script arguments: the store's handle on the counts of one {@link CountKey}
 * ({@link RedisRateLimitStore#bind}), made once at deployment. It holds the end of their keys, and the script's code
 * of their algorithm for each kind, as the bytes the script is sent.
 * Immutable but for two caches, each replaced whole: {@code last}, the arguments of the last policy seen (limits sharing
 * a name may differ in size), and {@code tagged}, the codes with the last sizing tag and window seen (live values change
 * them rarely).
 */
final class BoundCountKey {

    /** Microseconds in one step of a one-second window: a step is an eighth of the window. */
    private static final long MICROS_PER_STEP_SECOND = 125_000L;
    private static final long MICROS_PER_SECOND = 1_000_000L;

    final CountKey key;
    /** What follows the hash tag in the key: {@code name} or {@code name/plan}. */
    final byte[] suffix;
    private final String[] codes;
    private final byte[][] untagged;
    private volatile PolicyArguments last;
    private volatile TaggedCodes tagged;

    BoundCountKey(CountKey key) {
        this.key = key;
        this.suffix = RedisKeys.suffix(key).getBytes(StandardCharsets.UTF_8);
        String algorithm = switch (key.algorithm()) {
            case SLIDING_WINDOW -> "s";
            case STRICT_WINDOW -> "t";
            case TOKEN_BUCKET -> "b";
        };
        Kind[] kinds = Kind.values();
        this.codes = new String[kinds.length];
        this.untagged = new byte[kinds.length][];
        for (Kind kind : kinds) {
            codes[kind.ordinal()] = algorithm + switch (kind) {
                case ACQUIRE -> "a";
                case SHADOW -> "s";
                case CHARGE -> "c";
            };
            untagged[kind.ordinal()] = ascii(codes[kind.ordinal()]);
        }
    }

    /** The handle of limit {@code i}: the one bound at deployment, or one made now for a request made by hand. */
    static BoundCountKey of(RateLimitRequest request, int i) {
        return request.handle(i) instanceof BoundCountKey b ? b : new BoundCountKey(request.key(i));
    }

    /**
     * The script's code of one limit: algorithm and kind, then the sizing tag and window ({@code sa12345/60}) unless
     * the tag is 0.
     */
    byte[] code(Kind kind, int tag, RateLimitPolicy policy) {
        if (tag == 0) {
            return untagged[kind.ordinal()];
        }
        TaggedCodes codes = tagged;
        if (codes == null || codes.tag != tag || codes.window != policy.windowSeconds()) {
            byte[][] all = new byte[this.codes.length][];
            for (int i = 0; i < all.length; i++) {
                all[i] = ascii(this.codes[i] + tag + "/" + policy.windowSeconds());
            }
            codes = new TaggedCodes(tag, policy.windowSeconds(), all);
            tagged = codes;
        }
        return codes.codes[kind.ordinal()];
    }

    /** What the script needs of {@code policy}: its permit limit, and its step or interval in microseconds. */
    PolicyArguments arguments(RateLimitPolicy policy) {
        PolicyArguments args = last;
        if (args == null || args.policy != policy) {
            args = new PolicyArguments(policy);
            last = args;
        }
        return args;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "RedisRateLimitStore.BoundCountKey[" + key + "]";
    }

    /**
     * What the script needs of a policy: the permit limit, and the step of a window (an eighth of it) or the interval
     * of a bucket ({@code ceil(window / permitLimit)}), in microseconds. Immutable.
     */
    static final class PolicyArguments {
        final RateLimitPolicy policy;
        final long limit;
        final long size;

        PolicyArguments(RateLimitPolicy policy) {
            this.policy = policy;
            this.limit = policy.permitLimit();
            this.size = policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET
                    ? (policy.windowSeconds() * MICROS_PER_SECOND + policy.permitLimit() - 1) / policy.permitLimit()
                    : policy.windowSeconds() * MICROS_PER_STEP_SECOND;
        }
    }

    private record TaggedCodes(int tag, int window, byte[][] codes) {
    }
}
