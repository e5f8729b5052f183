package dev.ratelimit.jcache.internal;

import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * The library's entry processor: runs a {@link CountCall}, given as its one argument ({@link CountCall#arguments()}),
 * on the entry where the grid keeps it. An enum, so that it travels as its name alone (Hazelcast writes an enum as
 * its class and constant, without Java serialization's streams), and the call as an array of longs.
 */
public enum CountProcessor implements EntryProcessor<String, byte[], long[]> {

    INSTANCE;

    @Override
    public long[] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        return CountCall.of(arguments).process(entry);
    }
}
