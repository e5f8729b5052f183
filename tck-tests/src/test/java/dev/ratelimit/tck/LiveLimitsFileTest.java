package dev.ratelimit.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * SPEC 19, live values, against a server started with {@code -Dratelimit.limits-file=<tck.limitsFile>} and
 * {@code -Dratelimit.refresh-seconds=1} (runs only then: {@value #LIMITS_FILE_PROPERTY} names the file, which this test
 * writes). A raised limit applies within 3 s and keeps the count; a typo keeps the last good value and is logged
 * naming the key (read from {@code tck.server.log}, or from the embedded server's own log); a deleted file keeps
 * the last good values.
 */
class LiveLimitsFileTest extends TckTestBase {

    static final String LIMITS_FILE_PROPERTY = "tck.limitsFile";
    private static final String KEY = "ratelimit.limits.default.permit-limit";
    /** The refresh is every second; a change shows within 3 s. */
    private static final Duration APPLIED_WITHIN = Duration.ofSeconds(3);

    @Test
    void aRaisedLimitAppliesWithinSecondsKeepingTheCountATypoAndADeletedFileKeepTheLastGoodValues() throws Exception {
        String property = System.getProperty(LIMITS_FILE_PROPERTY, "");
        assumeTrue(!property.isBlank(), LIMITS_FILE_PROPERTY + " is not set: the server was not started with a limits file");
        Path file = Path.of(property);
        try (ServerLog log = new ServerLog()) {
            write(file, KEY + "=3");
            Thread.sleep(2_000); // two refreshes: a value the server may have started with is read back

            Caller caller = server.withFreshKey();
            for (int i = 0; i < 3; i++) {
                caller.get(TODOS).assertStatus(200);
            }
            caller.get(TODOS).assertRefusedBy(DEFAULT);

            write(file, KEY + "=5");
            long written = System.nanoTime();
            Reply raised = caller.get(TODOS);
            while (raised.status() == 429 && System.nanoTime() - written < APPLIED_WITHIN.toNanos()) {
                Thread.sleep(100); // a refusal spends nothing
                raised = caller.get(TODOS);
            }
            raised.assertStatus(200);
            assertThat(raised.policy(DEFAULT).quota()).as("%s", raised).isEqualTo(5);
            assertThat(raised.remaining(DEFAULT)).as("the count was kept: %s", raised).isEqualTo(1);

            write(file, KEY + "=abc");
            Thread.sleep(2_500);
            Reply afterTypo = server.withFreshKey().get(TODOS).assertStatus(200);
            assertThat(afterTypo.policy(DEFAULT).quota()).as("%s", afterTypo).isEqualTo(5);
            assertThat(log.contains(KEY + "=abc", APPLIED_WITHIN)).as("a warning naming %s and abc", KEY).isTrue();

            Files.delete(file);
            Thread.sleep(2_500);
            Reply afterDelete = server.withFreshKey().get(TODOS).assertStatus(200);
            assertThat(afterDelete.policy(DEFAULT).quota()).as("%s", afterDelete).isEqualTo(5);
        } finally {
            write(file, KEY + "=5"); // a run against the same server again finds the same start
        }
    }

    /** As a ConfigMap's volume changes its files: written beside, then moved in place. */
    private static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, content + "\n", StandardCharsets.UTF_8);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * What the server logs: the file {@code tck.server.log} (an external server, started by tck-launcher), else the
     * embedded server's {@code java.util.logging} records of {@code dev.ratelimit}.
     */
    private static final class ServerLog extends Handler implements AutoCloseable {
        private final Path file;
        private final Logger logger = Logger.getLogger("dev.ratelimit");
        private final List<String> records = new CopyOnWriteArrayList<>();

        ServerLog() {
            String path = System.getProperty("tck.server.log", "");
            this.file = path.isBlank() ? null : Path.of(path);
            if (file == null) {
                logger.addHandler(this);
            }
        }

        boolean contains(String text, Duration within) throws IOException, InterruptedException {
            long until = System.nanoTime() + within.toNanos();
            do {
                if (file != null ? Files.readString(file, StandardCharsets.ISO_8859_1).contains(text)
                        : records.stream().anyMatch(r -> r.contains(text))) {
                    return true;
                }
                Thread.sleep(100);
            } while (System.nanoTime() < until);
            return false;
        }

        @Override
        public void publish(LogRecord record) {
            if (record.getMessage() != null) {
                records.add(record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }
}
