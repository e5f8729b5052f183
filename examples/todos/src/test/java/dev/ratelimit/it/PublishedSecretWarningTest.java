package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.examples.todos.TodosServer;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The example ships a {@code ratelimit.key-secret} that anyone can read: started with it, the server warns once that it
 * is a published example value and says how to set one's own; started with a secret of one's own, it says nothing
 * (docs/login-protection.md, "The example: POST /login").
 */
class PublishedSecretWarningTest {

    private static final String KEY = "ratelimit.key-secret";
    private static final String PUBLISHED = "example-only-not-a-secret-0f4c2a";

    private final LogRecords logged = LogRecords.on("dev.ratelimit.examples.todos.PublishedSecret");

    @AfterEach
    void release() {
        logged.close();
        System.clearProperty(KEY);
    }

    @Test
    void theExamplesOwnSecretIsAWarningAtStartUpNamingTheKeyAndHowToSetOnesOwn() {
        try (TodosServer server = TodosServer.start(0)) {
            assertThat(server.port()).isPositive();
        }
        assertThat(logged.records()).as("records of the example's secret check").hasSize(1);
        LogRecord warning = logged.records().get(0);
        assertThat(warning.getLevel()).isEqualTo(Level.WARNING);
        assertThat(warning.getMessage()).contains(KEY, "published value", "-D" + KEY + "=", "RATELIMIT_KEY_SECRET")
                .doesNotContain(PUBLISHED);
    }

    @Test
    void aSecretOfOnesOwnIsNoWarning() {
        System.setProperty(KEY, "a-secret-of-my-own-7c1d9e");
        try (TodosServer server = TodosServer.start(0)) {
            assertThat(server.port()).isPositive();
        }
        assertThat(logged.records()).as("records of the example's secret check").isEmpty();
    }
}
