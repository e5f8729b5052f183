package dev.ratelimit.benchmarks.inprocess;

import org.openjdk.jmh.annotations.Threads;

/** {@link HotKey} on one thread: the uncontended cost of a permit. */
@Threads(1)
public class HotKey1Thread extends HotKey {
}
