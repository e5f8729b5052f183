package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitAdmin;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.core.RateLimitExceededException;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The programmatic API takes the key of a limit per argument, or the address of a limit per address, explicitly:
 * work outside any request counts in the same partitions as the annotations would, and the admin API finds them.
 */
class ProgrammaticKeysTest {

    @Test
    void aLimitPerArgumentSpendsFromTheCountOfTheNormalisedKeyAndRefusesACallWithoutOne() {
        try (Embedded app = Embedded.builder()
                .config("ratelimit.limits.otp.permit-limit", "2").config("ratelimit.limits.otp.window-seconds", "60")
                .config("ratelimit.limits.otp.per", "argument").startCdi()) {
            RateLimiter limiter = app.bean(RateLimiter.class);

            assertThat(limiter.acquireForKey("otp", 1, "Alice").allowed()).isTrue();
            assertThat(limiter.acquireForKey("otp", 1, " alice ").outcome(0).remaining()).isZero();
            assertThatThrownBy(() -> limiter.acquireForKey("otp", 1, "ALICE")).isInstanceOf(RateLimitExceededException.class);
            assertThat(limiter.acquireForKey("otp", 1, "bob").allowed()).as("another key counts apart").isTrue();
            assertThatThrownBy(() -> limiter.acquire("otp", 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("\"otp\" counts per argument");

            RateLimitAdmin admin = app.bean(RateLimitAdmin.class);
            String partition = admin.keyPartition("otp", "alice");
            assertThat(partition).startsWith("arg:").doesNotContainIgnoringCase("alice");
            assertThat(admin.count("otp", partition, null).remaining()).isZero();
            admin.reset("otp", partition, null, "the test");
            assertThat(limiter.acquireForKey("otp", 1, "alice").allowed()).isTrue();
        }
    }

    @Test
    void aLimitPerAddressSpendsFromTheCountOfTheAddressGiven() throws Exception {
        try (Embedded app = Embedded.builder()
                .config("ratelimit.limits.ip.permit-limit", "1").config("ratelimit.limits.ip.window-seconds", "60")
                .config("ratelimit.limits.ip.per", "address").startCdi()) {
            RateLimiter limiter = app.bean(RateLimiter.class);
            InetAddress one = InetAddress.getByName("192.0.2.1");

            assertThat(limiter.acquireForAddress("ip", 1, one).partition()).isEqualTo("addr:192.0.2.1");
            assertThatThrownBy(() -> limiter.acquireForAddress("ip", 1, one)).isInstanceOf(RateLimitExceededException.class);
            assertThat(limiter.acquireForAddress("ip", 1, InetAddress.getByName("192.0.2.2")).allowed()).isTrue();
            assertThat(limiter.acquireForAddress("ip", 1, null).partition()).isEqualTo("addr:unknown");

            RateLimitAdmin admin = app.bean(RateLimitAdmin.class);
            assertThatThrownBy(() -> admin.keyPartition("ip", "192.0.2.1")).as("a digest would name no count of it")
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the limit \"ip\" counts per address, not per argument");
            assertThatThrownBy(() -> admin.keyPartition("nothing-declares-it", "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"nothing-declares-it\"");
        }
    }
}
