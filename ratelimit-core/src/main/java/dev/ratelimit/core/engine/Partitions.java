package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.address.OrderedPartitioner;
import dev.ratelimit.core.binding.ArgumentKeys;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.LiveLimits;
import dev.ratelimit.core.config.RateLimitSettings;

/**
 * The one place that decides in which partition a limit counts for a request, by its {@code per}:
 * <ul>
 *   <li>{@code CALLER}: the request's partition, chosen once when its ledger is made ({@link #ofCaller}), by the
 *       application's partitioner or the default one on {@code ratelimit.partition-by} ({@link OrderedPartitioner});
 *   <li>{@code APPLICATION}: the same part as the caller's, and the store counts it under {@code application} itself
 *       ({@link CountKey#partition}: a key per application has one count, whatever the caller);
 *   <li>{@code ADDRESS}: the caller's client address ({@link ClientAddresses#partitionOf}: an HTTP request's client is
 *       resolved once and kept, so the partitioner and this find the same text, made once), {@value ClientAddresses#UNKNOWN}
 *       outside an HTTP request or where the runtime cannot tell;
 *   <li>{@code ARGUMENT}: {@code arg:} and the digest of the call's key ({@link ArgumentKeys}), one digest per call.
 * </ul>
 *
 * <p>Thread-safe and immutable. Allocates nothing but the partition text of a limit per argument (the digest).
 */
final class Partitions {

    /** The key of a call that has none to give: a limit per argument then fails, naming itself. */
    static final Object NO_KEY = new Object();

    private final RateLimitPartitioner partitioner;
    private final ClientAddresses addresses;
    private final ArgumentKeys argumentKeys;

    /**
     * @param partitioner the application's partitioner, or null for the default on {@code ratelimit.partition-by}
     */
    Partitions(RateLimitSettings settings, RateLimitPartitioner partitioner) {
        this.addresses = settings.clientAddresses();
        this.partitioner = partitioner != null ? partitioner
                : new OrderedPartitioner(settings.partitionBy(), settings.partitionHeader(), addresses);
        this.argumentKeys = ArgumentKeys.of(settings.keySecret());
    }

    /** The digests of keys, for the admin API (a key's partition as the request path makes it). */
    ArgumentKeys argumentKeys() {
        return argumentKeys;
    }

    /** The partition of a request's limits per caller: the partitioner's answer, asked once per request. */
    String ofCaller(RateLimitCaller caller) {
        String partition = partitioner.partition(caller);
        if (partition == null) {
            throw new IllegalStateException("ratelimit: the partitioner " + partitioner + " answered null");
        }
        return partition;
    }

    /**
     * The partition a part of a call site counts in.
     *
     * @param argument the call's key digested ({@link #ofArgument}), for a part per argument; else unused
     */
    String of(RequestLedger ledger, LiveLimits.Part part, String argument) {
        return switch (part.per) {
            case ADDRESS -> ofAddress(ledger.caller());
            case ARGUMENT -> argument;
            default -> ledger.partition();
        };
    }

    /**
     * The partition of a call site's one part: {@link #of}, digesting the key when the part counts per argument.
     *
     * @throws IllegalArgumentException for a part per argument when the call gave no key ({@link #NO_KEY})
     */
    String of(RequestLedger ledger, BoundLimits limits, LiveLimits.Part part, Object key) {
        RateLimitPer per = part.per;
        if (per == RateLimitPer.CALLER || per == RateLimitPer.APPLICATION) {
            return ledger.partition();
        }
        return per == RateLimitPer.ADDRESS ? ofAddress(ledger.caller()) : ofArgument(limits, part, key);
    }

    /**
     * The partition of the first part per argument among {@code first} and those after it (one digest per call), or
     * null when none counts per argument.
     */
    String ofArgumentIn(BoundLimits limits, LiveLimits.Part first, Object key) {
        for (LiveLimits.Part p = first; p != null; p = p.next) {
            if (p.per == RateLimitPer.ARGUMENT) {
                return ofArgument(limits, p, key);
            }
        }
        return null;
    }

    /** {@code arg:<digest>} of the call's key, normalised unless the call site's key is exact. */
    private String ofArgument(BoundLimits limits, LiveLimits.Part part, Object key) {
        if (key == NO_KEY) {
            throw new IllegalArgumentException("ratelimit: the limit \"" + part.request.policy(0).name()
                    + "\" counts per argument: give the key whose count it spends (" + limits.where() + ")");
        }
        return argumentKeys.partition(key, limits.exactKey());
    }

    /** The partition of a limit per address: the caller's client, {@value ClientAddresses#UNKNOWN} when it has none. */
    private String ofAddress(RateLimitCaller caller) {
        String partition = addresses.partitionOf(caller);
        return partition == null ? ClientAddresses.UNKNOWN : partition;
    }
}
