package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.TodosServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The example ships a {@code ratelimit.key-secret} that anyone can read: started with it, the server warns once that it
 * is a published example value and says how to set one's own; started with a secret of one's own, it says nothing
 * (docs/login-protection.md, "The example: POST /login").
 */
class PublishedSecretWarningTest {

    private static final String KEY = "ratelimit.key-secret";
    private static final String PUBLISHED = "example-only-not-a-secret-0f4c2a";
    private static final Logger LOGGER = Logger.getLogger("dev.ratelimit.examples.todos.PublishedSecret");

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void capture() {
        LOGGER.addHandler(capture);
    }

    @AfterEach
    void release() {
        LOGGER.removeHandler(capture);
        System.clearProperty(KEY);
    }

    @Test
    void theExamplesOwnSecretIsAWarningAtStartUpNamingTheKeyAndHowToSetOnesOwn() {
        try (TodosServer server = TodosServer.start(0)) {
            assertThat(server.port()).isPositive();
        }
        assertThat(records).as("records of the example's secret check").hasSize(1);
        LogRecord warning = records.get(0);
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
        assertThat(records).as("records of the example's secret check").isEmpty();
    }
}
