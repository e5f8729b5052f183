package dev.ratelimit.tck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import dev.ratelimit.tck.support.ServerUnderTestExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * What every test class shares: the server under test, and the example application's facts.
 *
 * <p>Every test spends from partitions of its own (a fresh {@code X-Api-Key} or Bearer name), so tests never
 * share counts and the suite can run again and again against a server that is already running.
 */
@ExtendWith(ServerUnderTestExtension.class)
abstract class TckTestBase {

    static final String TODOS = "/todos";
    static final String EXPORT = "/todos/export";
    /** An id no todo has: {@code GET /todos/{id}} answers 404 from the method (which spends). */
    static final String MISSING_TODO = "/todos/2147480000";

    static final String GLOBAL = "application";
    static final String MODULE = "module";
    static final String DEFAULT = "default";
    static final String BURST = "burst";
    static final String HOURLY = "hourly";
    static final String DELETE = "delete";
    static final String EXPORT_LIMIT = "export";

    /** A burst window is 1 s; six POSTs proven to reach the server within it must see the sixth refused. */
    private static final Duration BURST_WINDOW = Duration.ofSeconds(1);
    private static final int BURST_ATTEMPTS = 5;

    ServerUnderTest server;

    @BeforeEach
    void connect(ServerUnderTest server) {
        this.server = server;
    }

    OptionalInt global() {
        return server.globalPermitLimit();
    }

    /** When the server runs with a global limit: the caller's global count shows {@code spent} requests spent. */
    void assertGlobalSpent(Reply reply, int spent) {
        if (global().isPresent()) {
            assertThat(reply.remaining(GLOBAL)).as("global r after %d requests of this partition: %s", spent, reply)
                    .isEqualTo(global().getAsInt() - spent);
            assertThat(reply.limitNames().get(0)).as("the global limit is listed first: %s", reply).isEqualTo(GLOBAL);
        } else {
            assertThat(reply.findPolicy(GLOBAL)).as("no global limit configured: %s", reply).isEmpty();
        }
    }

    static String uniqueTitle() {
        return ServerUnderTest.freshName("todo");
    }

    /** Creates a todo on a partition of its own (so the test's partitions are not charged); returns its path. */
    String createTodoElsewhere() {
        return pathOf(server.withFreshKey().createTodo(uniqueTitle()).assertStatus(201));
    }

    static String pathOf(Reply created) {
        JsonNode id = created.json().path("id");
        assertThat(id.isMissingNode() || id.isNull()).as("id of the created todo: %s", created).isFalse();
        return TODOS + "/" + id.asText();
    }

    /**
     * Five POSTs that the burst limit allows (each checked: burst and hourly count down by one), then
     * {@code sixth} on the same caller, all within one burst window as the client's own clock proves: the
     * server saw the sixth less than 1 s after the first, so the burst count (permits return 1 s after the
     * start of their step) was still full. When the round trips were too slow to prove it (for the sixth, or
     * already for one of the five: then a permit may have returned, and its burst {@code r} proves nothing), the
     * scenario is repeated with a fresh caller; every count that can be judged is asserted at once.
     */
    Burst exceedBurst(Function<Caller, Reply> sixth) {
        attempts:
        for (int attempt = 1; attempt <= BURST_ATTEMPTS; attempt++) {
            Caller caller = server.withFreshKey();
            long start = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                Reply created = caller.createTodo(uniqueTitle()).assertStatus(201);
                assertThat(created.remaining(HOURLY)).as("hourly r after %d POSTs: %s", i + 1, created).isEqualTo(499 - i);
                if (created.receivedNanos() - start >= BURST_WINDOW.toNanos()) {
                    continue attempts;
                }
                assertThat(created.remaining(BURST)).as("burst r after %d POSTs: %s", i + 1, created).isEqualTo(4 - i);
            }
            Reply refused = sixth.apply(caller);
            if (refused.receivedNanos() - start < BURST_WINDOW.toNanos()) {
                return new Burst(caller, refused);
            }
        }
        return fail("could not send six POSTs within one second in %d attempts: the server under test is too slow for this test", BURST_ATTEMPTS);
    }

    record Burst(Caller caller, Reply sixth) {
    }

    static void sleepUntil(long nanoTime) {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            try {
                Thread.sleep(Math.max(1, wait / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    static void sleepSeconds(long seconds) {
        sleepUntil(System.nanoTime() + Duration.ofSeconds(seconds).toNanos());
    }
}
