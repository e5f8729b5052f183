package dev.ratelimit.tck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static dev.ratelimit.tck.ClientAddressCounts.forwardedFor;
import static dev.ratelimit.tck.ClientAddressCounts.freshIpv4;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example's {@code POST /login} and its two limits that count only failures: {@code login-address} (5 per
 * 900 s per client address, strict window) and {@code login-account} (10 per 3600 s per account, by the normalised
 * username). Against a server started with {@code ratelimit.trusted-proxies=127.0.0.0/8,::1}
 * ({@code tck.clientAddresses=trusted-proxies}; it fails against a server started otherwise), so that each client
 * comes from an address of its own: the suite plays the proxy on the loopback address and forwards for it. Each test takes fresh addresses and, but for the
 * account {@code carol}, which it starts afresh through the admin API, fresh usernames: the suite can run again
 * against the same server. The flood of made-up {@code X-Api-Key}s runs last, as this class runs last in its server's
 * run (see junit-platform.properties): it leaves {@code GET /todos}'s limits without room for a window.
 */
@Order(Integer.MAX_VALUE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LoginProtectionIT extends TckTestBase {

    /** The flood: more made-up keys than the example's table holds counts ({@code ratelimit.max-tracked-partitions}). */
    private static final int FLOOD = 10_200;

    static final String LOGIN = "/login";
    static final String LOGIN_ADDRESS = "login-address";
    static final String LOGIN_ACCOUNT = "login-account";
    private static final String PASSWORD = "wonderland";
    private static final String ADMIN = AdminTest.ADMIN + "/limits/" + LOGIN_ACCOUNT;

    @BeforeEach
    void onlyAgainstAServerThatTrustsTheLoopbackProxy() {
        ClientAddressCounts.requireMode(ClientAddressCounts.TRUSTED_PROXIES);
    }

    private static Reply login(Caller client, String username, String password) {
        return client.postForm(LOGIN, "username", username, "password", password);
    }

    /** An account that does not exist: its failures count in a count of its own. */
    private static String nobody() {
        return ServerUnderTest.freshName("nobody");
    }

    private Caller ops() {
        return server.as("ops:admin");
    }

    @Test
    void fiveWrongPasswordsFromOneAddressAre401AndTheSixthAndARightOneAfterThemAre429NamingLoginAddress() {
        Caller client = forwardedFor(server, freshIpv4());
        for (int i = 0; i < 5; i++) {
            Reply wrong = login(client, nobody(), "guess-" + i).assertStatus(401);
            assertThat(wrong.header("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
            assertThat(wrong.remaining(LOGIN_ADDRESS)).as("%s", wrong).isEqualTo(4 - i);
        }
        Reply sixth = login(client, nobody(), "guess-5").assertRefusedBy(LOGIN_ADDRESS);
        assertThat(sixth.retryAfter()).as("a strict window of 900 s in steps of 112.5 s: %s", sixth).isBetween(880L, 1013L);
        Reply right = login(client, "bob", PASSWORD).assertRefusedBy(LOGIN_ADDRESS);
        assertThat(right.retryAfter()).isBetween(880L, 1013L);
    }

    @Test
    void twentyRightPasswordsFromOneAddressAreAll200() {
        Caller client = forwardedFor(server, freshIpv4());
        for (int i = 0; i < 20; i++) {
            Reply ok = login(client, "dave", PASSWORD).assertStatus(200);
            assertThat(ok.json().path("token").asText()).isEqualTo("dave");
            assertThat(ok.remaining(LOGIN_ADDRESS)).as("a success gives its permit back: %s", ok).isEqualTo(5);
        }
    }

    @Test
    void twentyParallelWrongPasswordsFromAFreshAddressGetExactlyFive401AndFifteen429() {
        Caller client = forwardedFor(server, freshIpv4());
        List<Supplier<Reply>> attempts = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String password = "guess-" + i;
            attempts.add(() -> login(client, nobody(), password));
        }
        List<Reply> replies = Caller.atOnce(attempts);
        long unauthorized = replies.stream().filter(r -> r.status() == 401).count();
        List<Reply> refused = replies.stream().filter(r -> r.status() == 429).toList();
        assertThat(unauthorized).as("%s", replies).isEqualTo(5);
        assertThat(refused).as("%s", replies).hasSize(15);
        refused.forEach(r -> r.assertRefusedBy(LOGIN_ADDRESS));
    }

    @Test
    void anAccountNamedWronglyFromTenAddressesIsRefusedFromAnEleventhInAnyCaseOrSpacing() {
        ops().delete(ADMIN + "/partitions?key=carol").assertStatus(204); // a count of its own, whatever ran before
        // one account however it is written: case, spacing, a no-break space, full-width letters (NFKC)
        List<String> spellings = List.of("carol", "Carol", "CAROL", " carol", "carol ", "\tCaRoL", "\u00A0carol",
                "\uFF43\uFF41\uFF52\uFF4F\uFF4C", "cArOl\u00A0", "  CAROL  ");
        for (String spelling : spellings) {
            Reply wrong = login(forwardedFor(server, freshIpv4()), spelling, "not-" + PASSWORD).assertStatus(401);
            assertThat(wrong.findPolicy(LOGIN_ACCOUNT)).as("an allowed answer never names the account's limit: %s", wrong)
                    .isEmpty();
        }
        Reply eleventh = login(forwardedFor(server, freshIpv4()), "Carol", "not-" + PASSWORD).assertRefusedBy(LOGIN_ACCOUNT);
        assertThat(eleventh.retryAfter()).as("a sliding window of 3600 s: %s", eleventh).isBetween(3000L, 3600L);
        Reply right = login(forwardedFor(server, freshIpv4()), "carol", PASSWORD).assertRefusedBy(LOGIN_ACCOUNT);
        assertThat(right.retryAfter()).isBetween(3000L, 3600L);

        String refused = ops().get(ADMIN + "/refused").assertStatus(200).body();
        assertThat(refused.toLowerCase(Locale.ROOT)).as("the most refused of %s, never in clear", LOGIN_ACCOUNT)
                .doesNotContain("carol").contains("arg:");

        JsonNode count = ops().get(ADMIN + "/partitions?key=Carol").assertStatus(200).json();
        assertThat(count.get("remaining").asInt()).as("%s", count).isZero();
        assertThat(count.get("partition").asText()).as("%s", count).startsWith("arg:");
        assertThat(count.toString().toLowerCase(Locale.ROOT)).doesNotContain("carol");

        ops().delete(ADMIN + "/partitions?key=Carol").assertStatus(204);
        Reply back = login(forwardedFor(server, freshIpv4()), "carol", PASSWORD).assertStatus(200);
        assertThat(back.json().path("token").asText()).isEqualTo("carol");
    }

    @Test
    void headersAfterSuccessFailureSuccessShowFiveFourFourLeftForLoginAddressAndNeverNameLoginAccount() {
        Caller client = forwardedFor(server, freshIpv4());
        List<Reply> replies = List.of(login(client, "alice", PASSWORD).assertStatus(200),
                login(client, nobody(), "guess").assertStatus(401),
                login(client, "alice", PASSWORD).assertStatus(200));
        assertThat(replies.stream().map(r -> r.remaining(LOGIN_ADDRESS)).toList()).as("%s", replies)
                .containsExactly(5L, 4L, 4L);
        for (Reply reply : replies) {
            assertThat(reply.findPolicy(LOGIN_ACCOUNT)).as("%s", reply).isEmpty();
            assertThat(reply.findItem(LOGIN_ACCOUNT)).as("%s", reply).isEmpty();
        }
    }

    @Test
    void aBearerHeaderClaimingThePlanGoldGetsNoFreshGuessesPerAddress() {
        String address = freshIpv4();
        for (int i = 0; i < 5; i++) {
            login(forwardedFor(server, address), nobody(), "guess-" + i).assertStatus(401);
        }
        Caller gold = server.as(ServerUnderTest.freshName("mallory") + ":gold").withHeaderLines("X-Forwarded-For", address);
        for (int i = 5; i < 12; i++) {
            Reply claimed = login(gold, nobody(), "guess-" + i);
            claimed.assertRefusedBy(LOGIN_ADDRESS);
            assertThat(claimed.retryAfter()).as("attempt %d, in the plan gold: %s", i + 1, claimed).isBetween(1L, 1013L);
        }
    }

    @Test
    void aBearerHeaderClaimingThePlanGoldGetsNoFreshGuessesPerAccount() {
        String account = nobody();
        for (int i = 0; i < 10; i++) {
            login(forwardedFor(server, freshIpv4()), account, "guess-" + i).assertStatus(401);
        }
        for (int i = 10; i < 12; i++) {
            Caller gold = server.as(ServerUnderTest.freshName("mallory") + ":gold")
                    .withHeaderLines("X-Forwarded-For", freshIpv4());
            Reply claimed = login(gold, account, "guess-" + i).assertRefusedBy(LOGIN_ACCOUNT);
            assertThat(claimed.retryAfter()).as("attempt %d, in the plan gold: %s", i + 1, claimed).isBetween(3000L, 3600L);
        }
    }

    /**
     * Made-up keys by the ten thousand on {@code GET /todos} (more than the example's table of 10 000 counts) leave
     * {@code login-address} room of its own: six wrong passwords from a fresh address, the sixth a 429. Last of its
     * server's run: the flood's counts keep {@code GET /todos}'s limits without room for their window.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void afterTenThousandMadeUpApiKeysTheSixthWrongPasswordFromAFreshAddressIsStill429() throws Exception {
        String run = ServerUnderTest.freshName("flood");
        AtomicInteger next = new AtomicInteger();
        AtomicInteger notOk = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < FLOOD; i = next.getAndIncrement()) {
                        if (server.withKey(run + "-" + i).get(TODOS).status() != 200) {
                            notOk.incrementAndGet();
                        }
                    }
                }));
            }
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.MINUTES)).as("the flood ended").isTrue();
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(notOk.get()).as("each made-up key's first GET /todos is allowed").isZero();

        Caller client = forwardedFor(server, freshIpv4());
        for (int i = 0; i < 5; i++) {
            Reply wrong = login(client, nobody(), "guess-" + i).assertStatus(401);
            assertThat(wrong.remaining(LOGIN_ADDRESS)).as("counted after the flood: %s", wrong).isEqualTo(4 - i);
        }
        login(client, nobody(), "guess-5").assertRefusedBy(LOGIN_ADDRESS);
    }

    @Test
    void aFormWithoutAPasswordIs400() {
        Reply missing = forwardedFor(server, freshIpv4()).postForm(LOGIN, "username", "alice").assertStatus(400);
        assertThat(missing.header("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    }
}
