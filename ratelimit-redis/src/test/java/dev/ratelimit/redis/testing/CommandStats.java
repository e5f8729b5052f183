package dev.ratelimit.redis.testing;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Redis ran, from {@code INFO commandstats}: per command, the calls that succeeded and those that
 * failed (Redis 6.2 counts a {@code NOSCRIPT} answer to {@code EVALSHA} as a failed call). Commands that a
 * script runs inside Redis are counted too. Immutable.
 */
public record CommandStats(Map<String, Long> succeeded, Map<String, Long> failed) {

    /** Reads the counters now. */
    public static CommandStats of(Resp resp) {
        Map<String, Long> succeeded = new HashMap<>();
        Map<String, Long> failed = new HashMap<>();
        for (String line : resp.string("INFO", "commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                long calls = field(line, "calls");
                long failures = field(line, "failed_calls") + field(line, "rejected_calls");
                succeeded.put(command, calls - failures);
                failed.put(command, failures);
            }
        }
        return new CommandStats(succeeded, failed);
    }

    /** The commands that succeeded since {@code before}, with how many times; {@code INFO} itself left out. */
    public Map<String, Long> succeededSince(CommandStats before) {
        return delta(succeeded, before.succeeded);
    }

    /** Script calls ({@code FCALL}, {@code EVALSHA} and {@code EVAL}) that succeeded since Redis started. */
    public long scriptCalls() {
        return scriptCallsSince(new CommandStats(Map.of(), Map.of()));
    }

    /** Script calls ({@code FCALL}, {@code EVALSHA} and {@code EVAL}) that succeeded since {@code before}. */
    public long scriptCallsSince(CommandStats before) {
        Map<String, Long> since = succeededSince(before);
        return since.getOrDefault("fcall", 0L) + since.getOrDefault("evalsha", 0L) + since.getOrDefault("eval", 0L);
    }

    /**
     * The command a store's calls are on a single Redis: {@code fcall} (the script as a function library) from Redis 7
     * on, {@code evalsha} before.
     */
    public static String scriptCommand(Resp resp) {
        return majorVersion(resp) >= 7 ? "fcall" : "evalsha";
    }

    /** The major version of the Redis {@code resp} talks to ({@code INFO server}). */
    public static int majorVersion(Resp resp) {
        for (String line : resp.string("INFO", "server").split("\r\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length());
                return Integer.parseInt(version.substring(0, version.indexOf('.')));
            }
        }
        throw new IllegalStateException("INFO server names no redis_version");
    }

    /** The commands that failed since {@code before}, with how many times. */
    public Map<String, Long> failedSince(CommandStats before) {
        return delta(failed, before.failed);
    }

    private static Map<String, Long> delta(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((command, count) -> {
            long d = count - before.getOrDefault(command, 0L);
            if (d != 0 && !command.equals("info")) {
                delta.put(command, d);
            }
        });
        return delta;
    }

    private static long field(String line, String name) {
        int at = line.indexOf(name + "=");
        if (at < 0 || (at > 0 && line.charAt(at - 1) != ':' && line.charAt(at - 1) != ',')) {
            return 0; // an older Redis without failed_calls / rejected_calls
        }
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at + name.length() + 1, end < 0 ? line.length() : end));
    }
}
