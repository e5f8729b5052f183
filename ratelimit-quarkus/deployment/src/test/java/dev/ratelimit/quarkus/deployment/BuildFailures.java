package dev.ratelimit.quarkus.deployment;

import java.util.function.Consumer;
import org.assertj.core.api.Assertions;

/** What a failed build of a test application said, cause by cause. */
final class BuildFailures {

    private BuildFailures() {
    }

    /** An assertion that the build failed with every one of {@code lines} in its messages, and a stack-less cause. */
    static Consumer<Throwable> saying(String... lines) {
        return failure -> {
            StringBuilder messages = new StringBuilder();
            boolean stackless = false;
            for (Throwable t = failure; t != null; t = t.getCause()) {
                messages.append(t).append('\n');
                stackless |= t instanceof InvalidRateLimitsException && t.getStackTrace().length == 0;
            }
            Assertions.assertThat(messages.toString()).contains(lines);
            Assertions.assertThat(stackless).as("the build step's own exception, without a stack trace: %s", messages).isTrue();
        };
    }
}
