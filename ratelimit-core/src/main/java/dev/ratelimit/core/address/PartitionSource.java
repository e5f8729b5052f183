package dev.ratelimit.core.address;

import java.util.Locale;

/** An element of {@code ratelimit.partition-by}: where the default partitioner looks for the caller. */
public enum PartitionSource {

    /** The authenticated caller: {@code sub:<name>}. */
    PRINCIPAL,
    /** The header named by {@code ratelimit.partition-header}: {@code <header>:<value>}. */
    HEADER,
    /** The client address: {@code addr:<network>}. */
    ADDRESS;

    /** The spelling in {@code ratelimit.partition-by}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The element spelled {@code key} (any case), or null. */
    public static PartitionSource of(String key) {
        for (PartitionSource source : values()) {
            if (source.key().equalsIgnoreCase(key)) {
                return source;
            }
        }
        return null;
    }
}
