package dev.ratelimit.redis.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP2 client for tests: administers Redis and inspects keys without Lettuce, so that what it
 * does never mixes with what the store under test does. One command at a time; not thread-safe.
 */
public final class Resp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public Resp(int port) {
        this(port, 10_000);
    }

    /** @param timeoutMillis how long a reply may take (a probe of a port that may not be Redis' waits less) */
    public Resp(int port, int timeoutMillis) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(timeoutMillis);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends a command; returns a String, Long, List or null; a Redis error is thrown. */
    public Object call(String... args) {
        return call(false, args);
    }

    /** Sends a command whose reply is a bulk string; returns its bytes as they are (null for none). */
    public byte[] bytes(String... args) {
        return (byte[]) call(true, args);
    }

    private Object call(boolean raw, String... args) {
        try {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(request.toByteArray());
            out.flush();
            return read(raw);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String string(String... args) {
        return (String) call(args);
    }

    public long number(String... args) {
        return (Long) call(args);
    }

    private Object read(boolean raw) throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("Redis: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return raw ? java.util.Arrays.copyOf(bytes, length) : new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(raw));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + type + " " + line);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("connection closed");
            }
            line.write(b);
        }
        in.read();
        return line.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }
}
