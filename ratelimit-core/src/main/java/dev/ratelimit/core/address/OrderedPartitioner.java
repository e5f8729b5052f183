package dev.ratelimit.core.address;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPartitioner;
import java.security.Principal;
import java.util.List;
import java.util.StringJoiner;

/**
 * The default partitioner (docs/partitions.md): the first of {@code ratelimit.partition-by} that gives a value,
 * else {@code anonymous}. {@code principal}: {@code sub:<name>} for an authenticated caller; {@code header}:
 * {@code <header>:<value as sent>} for a non-empty {@code ratelimit.partition-header}; {@code address}:
 * {@code addr:<network>} for a caller from an HTTP request ({@code addr:unknown} where the runtime cannot tell
 * the peer); outside an HTTP request there is no address, and the next element is asked. The client address is
 * resolved only when {@code address} is reached. Immutable.
 */
public final class OrderedPartitioner implements RateLimitPartitioner {

    /** The partition of every call for which no element gives a value. */
    public static final String ANONYMOUS = "anonymous";

    private final PartitionSource[] order;
    private final String header;
    private final String headerPrefix;
    private final ClientAddresses addresses;

    /**
     * @param order     the elements, in order (validated by the settings)
     * @param header    the partition header, or null for none (then {@code header} gives no value)
     * @param addresses how a client address becomes a partition
     */
    public OrderedPartitioner(List<PartitionSource> order, String header, ClientAddresses addresses) {
        if (order.isEmpty()) {
            throw new IllegalArgumentException("partition-by needs at least one element");
        }
        this.order = order.toArray(new PartitionSource[0]);
        this.header = header;
        this.headerPrefix = header + ":";
        this.addresses = addresses;
    }

    @Override
    public String partition(RateLimitCaller caller) {
        for (PartitionSource source : order) {
            String partition = switch (source) {
                case PRINCIPAL -> principal(caller);
                case HEADER -> header(caller);
                case ADDRESS -> addresses.partitionOf(caller);
            };
            if (partition != null) {
                return partition;
            }
        }
        return ANONYMOUS;
    }

    private static String principal(RateLimitCaller caller) {
        Principal principal = caller.principal();
        return principal != null && principal.getName() != null ? "sub:".concat(principal.getName()) : null;
    }

    private String header(RateLimitCaller caller) {
        if (header == null) {
            return null;
        }
        String value = caller.header(header);
        return value != null && !value.isEmpty() ? headerPrefix.concat(value) : null;
    }

    @Override
    public String toString() {
        StringJoiner text = new StringJoiner(",", "OrderedPartitioner(", header == null ? ")" : "; header " + header + ")");
        for (PartitionSource source : order) {
            text.add(source.key());
        }
        return text.toString();
    }
}
