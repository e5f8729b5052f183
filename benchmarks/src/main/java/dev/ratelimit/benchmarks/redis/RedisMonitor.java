package dev.ratelimit.benchmarks.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Counts the commands that clients send to Redis, through {@code MONITOR}: commands that scripts run
 * ({@code redis.call}, shown as {@code [0 lua]}) are not what a client sent and are left out, unlike
 * in {@code INFO}'s counters. {@link #countUntilMarker()} sends a marker on another connection and
 * counts what arrived before it.
 */
final class RedisMonitor implements AutoCloseable {

    private static final String MARKER = "ratelimit-bench-marker";

    private final String host;
    private final int port;
    private final Socket socket;
    private final BufferedReader in;

    RedisMonitor(String uri) throws IOException {
        URI parsed = URI.create(uri);
        host = parsed.getHost();
        port = parsed.getPort() < 0 ? 6379 : parsed.getPort();
        socket = new Socket(host, port);
        socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(30));
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        OutputStream out = socket.getOutputStream();
        out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            throw new IOException("MONITOR answered " + ok);
        }
    }

    /** What {@link #countUntilMarker()} counted: every client command, and the {@code EVALSHA}s among them. */
    record Counted(long commands, long evalsha) {
    }

    /** Client commands seen since MONITOR started, up to the marker this sends now. */
    Counted countUntilMarker() throws IOException {
        try (Socket marker = new Socket(host, port)) {
            marker.getOutputStream().write(("ECHO " + MARKER + "\r\n").getBytes(StandardCharsets.US_ASCII));
            marker.getOutputStream().flush();
            marker.getInputStream().read(new byte[64]);
        }
        long commands = 0;
        long evalsha = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.contains(MARKER)) {
                return new Counted(commands, evalsha);
            }
            int bracket = line.indexOf('[');
            if (bracket >= 0 && !line.startsWith("lua]", line.indexOf(' ', bracket) + 1)) {
                commands++;
                int command = line.indexOf(']', bracket) + 2;
                if (line.regionMatches(true, command, "\"evalsha\"", 0, 9)) {
                    evalsha++;
                }
            }
        }
        throw new IOException("MONITOR ended before the marker");
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
