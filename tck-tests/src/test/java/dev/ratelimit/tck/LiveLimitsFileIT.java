package dev.ratelimit.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

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
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Live values ({@code ratelimit.limits-file}), against a server started with {@code -Dratelimit.limits-file=<tck.limitsFile>} and
 * {@code -Dratelimit.refresh-seconds=1}: this class writes the file ({@value #LIMITS_FILE_PROPERTY} names it), and runs
 * only in a run of its own, against such a server (its name ends in {@code IT}, so the suite's other runs never pick
 * it up); a run that lost the property fails.
 *
 * <p>Nothing here sleeps and hopes: each change is observed, the server asked until the new value shows (with a
 * generous deadline, and a failure when it never does), and every answer until then must show the old value. What
 * the server cannot show in an answer (a typo it refused, a file gone) is observed in its log (the file
 * {@code tck.server.log} of an external server, started by tck-launcher, else the embedded server's own records), and
 * then the value in force is asked for.
 */
class LiveLimitsFileIT extends TckTestBase {

    static final String LIMITS_FILE_PROPERTY = "tck.limitsFile";
    private static final String PERMIT_LIMIT = "ratelimit.limits.default.permit-limit";
    private static final String WINDOW = "ratelimit.limits.default.window-seconds";
    private static final String ALGORITHM = "ratelimit.limits.default.algorithm";
    /** The file is read every second: a change shows within about that; this much is a server that stopped refreshing. */
    private static final Duration SHOWN_WITHIN = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(100);

    private Path file;
    private ServerLog log;

    @BeforeEach
    void theServerReadsTheLimitsFileThisClassWrites() {
        String property = System.getProperty(LIMITS_FILE_PROPERTY, "");
        assertThat(property).as("%s: the limits file the server under test was started with (this class runs only in a "
                + "run of its own, against a server started for it)", LIMITS_FILE_PROPERTY).isNotBlank();
        file = Path.of(property);
        log = new ServerLog();
    }

    @AfterEach
    void closeTheLog() {
        log.close();
    }

    @Test
    void aRaisedLimitAppliesKeepingTheCountATypoAndADeletedFileKeepTheLastGoodValues() throws Exception {
        try {
            write(PERMIT_LIMIT + "=3");
            awaitShown(server.withFreshKey(), reply -> quota(reply) == 3, reply -> { });

            Caller caller = server.withFreshKey();
            for (int i = 0; i < 3; i++) {
                caller.get(TODOS).assertStatus(200);
            }
            caller.get(TODOS).assertRefusedBy(DEFAULT);

            write(PERMIT_LIMIT + "=5");
            Reply raised = awaitShown(caller, reply -> quota(reply) == 5, before -> {
                before.assertRefusedBy(DEFAULT); // a refusal spends nothing: the count stays at 3 spent
                assertThat(quota(before)).as("the old limit, until the new one shows: %s", before).isEqualTo(3);
            });
            raised.assertStatus(200);
            assertThat(raised.remaining(DEFAULT)).as("the count was kept: %s", raised).isEqualTo(1);

            long mark = log.mark();
            write(PERMIT_LIMIT + "=abc");
            assertThat(log.awaitLine(mark, PERMIT_LIMIT + "=abc", "is not applied"))
                    .as("a warning naming %s and abc, once the server read the file", PERMIT_LIMIT).isTrue();
            assertThat(quota(server.withFreshKey().get(TODOS).assertStatus(200))).as("the last good value").isEqualTo(5);

            mark = log.mark();
            Files.delete(file);
            assertThat(log.awaitLine(mark, "the limits file", "missing or cannot be read"))
                    .as("a warning that the file is gone, once the server looked for it").isTrue();
            assertThat(quota(server.withFreshKey().get(TODOS).assertStatus(200))).as("the last good value").isEqualTo(5);
        } finally {
            write(PERMIT_LIMIT + "=3"); // the annotation's own value: a run against the same server finds the same start
        }
    }

    @Test
    void aChangedWindowOrAlgorithmStartsTheCountsAfreshAndIsLogged() throws Exception {
        try {
            write(PERMIT_LIMIT + "=3");
            awaitShown(server.withFreshKey(), reply -> quota(reply) == 3 && window(reply) == 60, reply -> { });

            Caller caller = exhausted();
            long mark = log.mark();
            write(PERMIT_LIMIT + "=3", WINDOW + "=120");
            Reply widened = awaitShown(caller, reply -> window(reply) == 120, before -> {
                before.assertRefusedBy(DEFAULT);
                assertThat(window(before)).as("the old window, until the new one shows: %s", before).isEqualTo(60);
            });
            widened.assertStatus(200);
            assertThat(widened.remaining(DEFAULT)).as("a new window starts the count afresh: %s", widened).isEqualTo(2);
            assertThat(log.awaitLine(mark, "the limit \"default\" now counts 120s SLIDING_WINDOW (was 60s SLIDING_WINDOW)",
                    "its counts start afresh")).as("the new window is logged").isTrue();

            // no permit of a 120 s window returns within the deadline: a caller let in again was counted afresh
            caller = exhausted();
            mark = log.mark();
            write(PERMIT_LIMIT + "=3", WINDOW + "=120", ALGORITHM + "=TOKEN_BUCKET");
            Reply afresh = awaitShown(caller, reply -> reply.status() == 200, before -> {
                before.assertRefusedBy(DEFAULT);
                assertThat(window(before)).isEqualTo(120);
            });
            assertThat(afresh.remaining(DEFAULT)).as("a new algorithm starts the count afresh: %s", afresh).isEqualTo(2);
            assertThat(log.awaitLine(mark, "the limit \"default\" now counts 120s TOKEN_BUCKET (was 120s SLIDING_WINDOW)",
                    "its counts start afresh")).as("the new algorithm is logged").isTrue();
        } finally {
            write(PERMIT_LIMIT + "=3");
        }
    }

    /** A fresh caller that spent the three permits of {@code GET /todos} and is refused. */
    private Caller exhausted() {
        Caller caller = server.withFreshKey();
        for (int i = 0; i < 3; i++) {
            caller.get(TODOS).assertStatus(200);
        }
        caller.get(TODOS).assertRefusedBy(DEFAULT);
        return caller;
    }

    /**
     * Asks {@code GET /todos} as {@code caller} until an answer is {@code shown}, and returns it; fails when none is
     * before the deadline. Every answer before it must pass {@code before} (the old value held until then).
     */
    private Reply awaitShown(Caller caller, Predicate<Reply> shown, Consumer<Reply> before) throws InterruptedException {
        long deadline = System.nanoTime() + SHOWN_WITHIN.toNanos();
        int asked = 0;
        while (true) {
            Reply reply = caller.get(TODOS);
            asked++;
            if (shown.test(reply)) {
                return reply;
            }
            before.accept(reply);
            if (System.nanoTime() - deadline > 0) {
                return fail("the change to %s did not show within %d s (%d answers; the last: %s)", file,
                        SHOWN_WITHIN.toSeconds(), asked, reply);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private static long quota(Reply reply) {
        return reply.policy(DEFAULT).quota();
    }

    private static long window(Reply reply) {
        return reply.policy(DEFAULT).windowSeconds();
    }

    /** As a ConfigMap's volume changes its files: written beside, then moved in place. */
    private void write(String... lines) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * What the server logs: the file {@code tck.server.log} (an external server, started by tck-launcher), else the
     * embedded server's {@code java.util.logging} records of {@code dev.ratelimit}. A mark is where the log ends now:
     * what an earlier test (or an earlier run against the same server) logged is never taken for what a change did.
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

        long mark() throws IOException {
            return file != null ? Files.size(file) : records.size();
        }

        /** Whether a line logged after {@code mark} holds every one of {@code texts}, within {@link #SHOWN_WITHIN}. */
        boolean awaitLine(long mark, String... texts) throws IOException, InterruptedException {
            long until = System.nanoTime() + SHOWN_WITHIN.toNanos();
            do {
                if (since(mark).stream().anyMatch(line -> List.of(texts).stream().allMatch(line::contains))) {
                    return true;
                }
                Thread.sleep(POLL.toMillis());
            } while (System.nanoTime() - until < 0);
            return false;
        }

        private List<String> since(long mark) throws IOException {
            if (file == null) {
                List<String> all = List.copyOf(records);
                return all.subList((int) Math.min(mark, all.size()), all.size());
            }
            byte[] all = Files.readAllBytes(file);
            int from = (int) Math.min(mark, all.length);
            return new String(all, from, all.length - from, StandardCharsets.ISO_8859_1).lines().toList();
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
