package dev.ratelimit.benchmarks.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection over loopback, as lean as a load generator should be: requests
 * are prepared bytes, responses are read into one reused buffer and parsed just enough to find their
 * end (Content-Length or chunked). Not thread-safe: one per benchmark thread.
 */
final class HttpConnection implements AutoCloseable {

    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHUNKED = "transfer-encoding: chunked".getBytes(StandardCharsets.US_ASCII);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buffer = new byte[64 * 1024];
    private int start;
    private int end;

    HttpConnection(int port) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(30_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** A GET request for {@code path} with the given header line (without CRLF), as bytes. */
    static byte[] get(String path, String header) {
        return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n" + header + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Sends {@code request} and reads the whole response; returns its status code. */
    int exchange(byte[] request) throws IOException {
        out.write(request);
        out.flush();
        int headersEnd = headersEnd();
        int status = (buffer[start + 9] - '0') * 100 + (buffer[start + 10] - '0') * 10 + (buffer[start + 11] - '0');
        long length = -1;
        boolean chunked = false;
        int line = start;
        for (int i = start; i < headersEnd; i++) {
            if (buffer[i] == '\n') {
                line = i + 1;
                if (startsWithIgnoreCase(line, headersEnd, CONTENT_LENGTH)) {
                    length = parseNumber(line + CONTENT_LENGTH.length, headersEnd, 10);
                } else if (startsWithIgnoreCase(line, headersEnd, CHUNKED)) {
                    chunked = true;
                }
            }
        }
        start = headersEnd;
        if (chunked) {
            readChunked();
        } else if (length > 0) {
            skip(length);
        }
        return status;
    }

    private int headersEnd() throws IOException {
        int scanned = 0; // bytes after start already scanned: fill() may move start
        while (true) {
            for (int i = start + Math.max(scanned, 3); i < end; i++) {
                if (buffer[i] == '\n' && buffer[i - 1] == '\r' && buffer[i - 2] == '\n' && buffer[i - 3] == '\r') {
                    return i + 1;
                }
            }
            scanned = end - start;
            fill();
        }
    }

    private void readChunked() throws IOException {
        while (true) {
            int lineEnd = lineEnd();
            long size = parseNumber(start, lineEnd, 16);
            start = lineEnd;
            if (size == 0) {
                start = lineEnd();
                return;
            }
            skip(size);
            start = lineEnd(); // the CRLF after the chunk
        }
    }

    /** The index after the next CRLF from {@code start}, reading more when needed. */
    private int lineEnd() throws IOException {
        while (true) {
            for (int i = start + 1; i < end; i++) {
                if (buffer[i] == '\n' && buffer[i - 1] == '\r') {
                    return i + 1;
                }
            }
            fill();
        }
    }

    private void skip(long length) throws IOException {
        while (end - start < length) {
            length -= end - start;
            start = end;
            fill();
        }
        start += (int) length;
    }

    /** Reads more bytes, compacting the unread ones to the front of the buffer. */
    private void fill() throws IOException {
        if (start > 0) {
            System.arraycopy(buffer, start, buffer, 0, end - start);
            end -= start;
            start = 0;
        }
        if (end == buffer.length) {
            throw new IOException("response headers larger than " + buffer.length + " bytes");
        }
        int read = in.read(buffer, end, buffer.length - end);
        if (read < 0) {
            throw new IOException("the server closed the connection");
        }
        end += read;
    }

    private boolean startsWithIgnoreCase(int from, int limit, byte[] prefix) {
        if (limit - from < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            int b = buffer[from + i];
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private long parseNumber(int from, int limit, int radix) {
        long value = 0;
        int i = from;
        while (i < limit && buffer[i] == ' ') {
            i++;
        }
        for (; i < limit; i++) {
            int digit = Character.digit(buffer[i], radix);
            if (digit < 0) {
                break;
            }
            value = value * radix + digit;
        }
        return value;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
