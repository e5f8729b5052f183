package dev.ratelimit.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.tck.support.PartnerTraffic;
import dev.ratelimit.tck.support.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A share ({@code POST /todos/{id}/share}) that waits for its turn at the partner holds no server thread, so
 * the server answers everything else meanwhile. Ten shares at once: the partner takes two a second, so two go at once
 * and the others wait their turn, up to 4.5 s, more at once than a server has threads to spare (event loops, or a small
 * worker pool, on two cores). While they wait, {@code GET /todos} answers within {@value #ANSWERED_WITHIN_MILLIS} ms,
 * far less than the shares' wait, and before most of them have gone.
 */
class WaitingSharesTest extends TckTestBase {

    private static final int SHARES = 10;
    /** Generous for two loaded cores; the shares after the first pair wait at least 1.125 s, the last ones 4.5 s. */
    private static final long ANSWERED_WITHIN_MILLIS = 2_000;

    @Test
    void getTodosAnswersAtOnceWhileMoreSharesWaitThanTheServerHasThreads() throws Exception {
        String share = createTodoElsewhere() + "/share";
        PartnerTraffic.alone(() -> {
            ExecutorService senders = Executors.newFixedThreadPool(SHARES);
            try {
                List<Future<Reply>> shares = new ArrayList<>();
                for (int i = 0; i < SHARES; i++) {
                    shares.add(senders.submit(() -> server.withFreshKey().post(share)));
                }
                awaitFirstShareGone(shares);

                Reply todos = server.withFreshKey().get(TODOS);
                long waiting = shares.stream().filter(pending -> !pending.isDone()).count();

                todos.assertStatus(200);
                assertThat(Duration.ofNanos(todos.receivedNanos() - todos.sentNanos()))
                        .as("GET /todos while shares wait: %s", todos).isLessThan(Duration.ofMillis(ANSWERED_WITHIN_MILLIS));
                assertThat(waiting).as("shares still waiting when GET /todos was answered").isGreaterThanOrEqualTo(SHARES / 2);
                int gone = 0;
                for (Future<Reply> pending : shares) {
                    Reply reply = pending.get(30, TimeUnit.SECONDS);
                    if (reply.status() == 204) {
                        gone++;
                    } else {
                        // a turn more than 5 s away (the partner's count was in use before): refused at once
                        reply.assertRefusedBy(PartnerLimitTest.PARTNER);
                    }
                }
                assertThat(gone).as("shares that waited their turn and went").isGreaterThanOrEqualTo(SHARES - 2);
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException(e);
            } finally {
                senders.shutdownNow();
            }
        });
    }

    /** Until a share has been answered with 204: the server takes the shares, and the others wait their turn. */
    private static void awaitFirstShareGone(List<Future<Reply>> shares) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            for (Future<Reply> pending : shares) {
                if (pending.isDone() && pending.get().status() == 204) {
                    return;
                }
            }
            assertThat(System.nanoTime() - deadline).as("a share answered 204 within 30 s").isNegative();
            Thread.sleep(10);
        }
    }
}
