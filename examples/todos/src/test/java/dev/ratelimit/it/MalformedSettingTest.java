package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The embedded example started with a malformed setting ({@code java -Dratelimit.global.permit-limit=abc -jar
 * todos.jar}) says which key and which value, in the library's own ERROR line, and does not serve: it exits with a
 * status other than 0, before saying it listens. (Quarkus, Open Liberty and Payara Micro: tck-launcher's
 * {@code MalformedSettingIT}.)
 */
class MalformedSettingTest {

    @Test
    void aMalformedSettingIsNamedWithItsValueAndTheExampleExitsWithoutListening() throws Exception {
        try (ExampleProcess example = ExampleProcess.launch(List.of("-Dratelimit.global.permit-limit=abc"), Map.of())) {
            int status = example.awaitExit(ExampleProcess.START);

            assertThat(status).as("exit status; output:%n%s", example.output()).isNotZero();
            assertThat(example.output().lines())
                    .as("the library's ERROR line (java.util.logging: SEVERE) names the key and the value")
                    .anySatisfy(line -> assertThat(line).startsWith("SEVERE: ratelimit")
                            .contains("ratelimit.global.permit-limit", "\"abc\""))
                    .noneSatisfy(line -> assertThat(line).startsWith("todos listening on"));
        }
    }
}
