package dev.ratelimit.tck.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** HTTP/1.1 on a plain socket, for what a well-behaved client library will not send. */
public final class RawHttp {

    private static final int READ_TIMEOUT_MILLIS = 10_000;

    private RawHttp() {
    }

    /**
     * Sends the head of a {@code POST} announcing a JSON body of {@code contentLength} bytes, never sends the
     * body, and returns the status line the server answers with (waiting at most 10 s).
     *
     * @throws java.net.SocketTimeoutException when the server waits for the body instead of answering
     */
    public static String statusLineOfBodilessPost(URI uri, String apiKey, int contentLength) throws IOException {
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            String head = "POST " + uri.getRawPath() + " HTTP/1.1\r\n"
                    + "Host: " + uri.getHost() + ":" + uri.getPort() + "\r\n"
                    + "X-Api-Key: " + apiKey + "\r\n"
                    + "Content-Type: application/json\r\n"
                    + "Content-Length: " + contentLength + "\r\n"
                    + "\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            String line = in.readLine();
            return line == null ? "(the server closed the connection without an answer)" : line;
        }
    }
}
