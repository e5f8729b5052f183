package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FakeClockTest {

    @Test
    void startsAtANonZeroReadingAlignedToNoStep() {
        FakeClock clock = new FakeClock();

        assertThat(clock.getAsLong()).isEqualTo(FakeClock.DEFAULT_START).isNotZero();
        assertThat(clock.now() % 125_000_000L).as("offset from the 125 ms grid").isNotZero();
    }

    @Test
    void movesOnlyWhenTold() {
        FakeClock clock = new FakeClock(1_000L);
        assertThat(clock.getAsLong()).isEqualTo(clock.getAsLong()).isEqualTo(1_000L);

        clock.advance(Duration.ofSeconds(2)).advanceMillis(3).advanceNanos(4).advanceSeconds(5);

        assertThat(clock.now()).isEqualTo(1_000L + 2_000_000_000L + 3_000_000L + 4L + 5_000_000_000L);
        assertThat(clock.set(-7L).now()).isEqualTo(-7L);
    }

    @Test
    void doesNotGoBack() {
        FakeClock clock = new FakeClock();

        assertThatIllegalArgumentException().isThrownBy(() -> clock.advanceMillis(-1));
        assertThatIllegalArgumentException().isThrownBy(() -> clock.advance(Duration.ofNanos(-1)));
        assertThat(clock.now()).isEqualTo(FakeClock.DEFAULT_START);
    }

    @Test
    void wrapsAroundLikeNanoTime() {
        FakeClock clock = new FakeClock(Long.MAX_VALUE);

        clock.advanceNanos(2);

        assertThat(clock.now()).isEqualTo(Long.MIN_VALUE + 1);
        assertThat(clock.now() - Long.MAX_VALUE).isEqualTo(2);
    }
}
