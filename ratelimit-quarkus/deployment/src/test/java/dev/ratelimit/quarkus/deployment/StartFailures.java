package dev.ratelimit.quarkus.deployment;

import java.util.function.Consumer;
import org.assertj.core.api.Assertions;

/** What a test application that failed to start said, cause by cause. */
final class StartFailures {

    private StartFailures() {
    }

    /** An assertion that the start failed with every one of {@code parts} in the messages of its causes. */
    static Consumer<Throwable> saying(String... parts) {
        return failure -> {
            StringBuilder messages = new StringBuilder();
            for (Throwable t = failure; t != null; t = t.getCause()) {
                messages.append(t).append('\n');
            }
            Assertions.assertThat(messages.toString()).contains(parts);
        };
    }
}
