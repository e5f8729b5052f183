package dev.ratelimit.it;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One HTTP/1.1 connection on a plain {@link Socket}, as a real client keeps it alive: each request is
 * written whole in one write, each response read to its end ({@code Content-Length} or chunked), nothing
 * hidden by a client library (no connection pool that could open a second connection, no header
 * normalisation: the status line and header names are exactly what the server sent).
 */
final class RawHttpConnection implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String host;

    RawHttpConnection(URI base) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true); // the client never holds a request back: only the server is measured
        socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        host = base.getHost() + ":" + base.getPort();
    }

    Socket socket() {
        return socket;
    }

    Response get(String path, String... headerLines) throws IOException {
        return exchange("GET", path, null, headerLines);
    }

    Response post(String path, String json, String... headerLines) throws IOException {
        return exchange("POST", path, json, headerLines);
    }

    Response exchange(String method, String path, String json, String... headerLines) throws IOException {
        StringBuilder request = new StringBuilder()
                .append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append("\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
        if (json != null) {
            request.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        }
        request.append("\r\n");
        byte[] head = request.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] whole = new byte[head.length + body.length];
        System.arraycopy(head, 0, whole, 0, head.length);
        System.arraycopy(body, 0, whole, head.length, body.length);
        out.write(whole);
        out.flush();
        return read(method.equals("HEAD"));
    }

    private Response read(boolean head) throws IOException {
        String statusLine = line();
        List<String[]> headers = new ArrayList<>();
        for (String line = line(); !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.add(new String[] {line.substring(0, colon), line.substring(colon + 1).strip()});
        }
        Response response = new Response(statusLine, headers, "");
        int status = response.status();
        if (head || status == 204 || status == 304) {
            return response;
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (response.header("Transfer-Encoding").filter(te -> te.equalsIgnoreCase("chunked")).isPresent()) {
            for (int size = Integer.parseInt(line().split(";")[0].strip(), 16); size > 0;
                    size = Integer.parseInt(line().split(";")[0].strip(), 16)) {
                body.write(in.readNBytes(size));
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else {
            int length = Integer.parseInt(response.header("Content-Length")
                    .orElseThrow(() -> new IOException("neither Content-Length nor chunked: " + response)));
            byte[] bytes = in.readNBytes(length);
            if (bytes.length < length) {
                throw new EOFException("the connection ended inside a body: " + response);
            }
            body.write(bytes);
        }
        return new Response(statusLine, headers, body.toString(StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the server closed the connection");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** A response: the status line as sent, the header fields in order with their names as sent, the body. */
    record Response(String statusLine, List<String[]> headers, String body) {

        int status() {
            return Integer.parseInt(statusLine.split(" ", 3)[1]);
        }

        Optional<String> header(String name) {
            return headers.stream().filter(h -> h[0].toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)))
                    .map(h -> h[1]).findFirst();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder(statusLine);
            headers.forEach(h -> text.append(" | ").append(h[0]).append(": ").append(h[1]));
            return text.toString();
        }
    }
}
