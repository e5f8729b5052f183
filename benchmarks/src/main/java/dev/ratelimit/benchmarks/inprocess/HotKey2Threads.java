package dev.ratelimit.benchmarks.inprocess;

import org.openjdk.jmh.annotations.Threads;

/** {@link HotKey} on two threads at once: both contend for the one key's state. */
@Threads(2)
public class HotKey2Threads extends HotKey {
}
