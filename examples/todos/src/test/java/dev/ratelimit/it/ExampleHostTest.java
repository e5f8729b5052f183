package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code HOST} (examples/todos' Main): an IPv6 address binds that address alone, on the port given. {@code HOST=::1}
 * once made the URI {@code http://::1:PORT/}, which has no host and no port, and the server listened on every
 * interface, on port 80. The example runs in a JVM of its own ({@link ExampleProcess}), which reads its environment.
 */
class ExampleHostTest {

    private static final System.Logger LOG = System.getLogger(ExampleHostTest.class.getName());

    @Test
    void anIpv6HostBindsThatAddressAloneOnTheGivenPort() throws Exception {
        InetAddress loopback6 = InetAddress.getByName("::1");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, loopback6)) {
            port = probe.getLocalPort(); // a port free on ::1 a moment ago
        } catch (IOException e) {
            String why = "this machine has no IPv6 loopback (::1 cannot be bound: " + e + "): the example's IPv6 binding "
                    + "is NOT tested here";
            LOG.log(System.Logger.Level.WARNING, why);
            System.err.println("WARNING: " + why);
            Assumptions.abort(why);
            return;
        }
        try (ExampleProcess example = ExampleProcess.start(List.of(), Map.of("HOST", "::1", "PORT",
                Integer.toString(port)))) {
            URI base = example.base();
            assertThat(base).as("where it says it listens").isEqualTo(URI.create("http://[::1]:" + port + "/"));

            HttpResponse<String> reply = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve("todos/1"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(reply.statusCode()).as("GET /todos/1 on [::1]:%d: %s", port, reply.body()).isEqualTo(200);

            // not the wildcard: the same port on IPv4 loopback has nobody listening (an IPv6 wildcard would accept it too)
            assertThatThrownBy(() -> {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 5_000);
                }
            }).as("a connection to 127.0.0.1:%d", port).isInstanceOf(ConnectException.class);
        }
    }
}
