package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two application instances, each a JVM of its own with its own store and Lettuce client, on one
 * Redis: together they admit exactly the permit limit (each alone would admit it: with the in-process
 * store, two instances with a limit of 100 admit 200).
 */
class TwoInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void twoInstancesOnOneRedisAdmitExactlyThePermitLimitInTotal() throws Exception {
        int permitLimit = 100;
        int requestsEach = 150;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> instances = new ArrayList<>();
        try {
            List<BufferedReader> outputs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Process instance = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        CountingInstance.class.getName(), REDIS.uri(), "two-jvms", Integer.toString(permitLimit),
                        Integer.toString(requestsEach))
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                instances.add(instance);
                outputs.add(new BufferedReader(new InputStreamReader(instance.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (BufferedReader output : outputs) {
                assertThat(output.readLine()).isEqualTo("ready");
            }
            for (Process instance : instances) { // both go at once
                OutputStream in = instance.getOutputStream();
                in.write('\n');
                in.flush();
            }
            int total = 0;
            List<Integer> admitted = new ArrayList<>();
            for (BufferedReader output : outputs) {
                String line = output.readLine();
                assertThat(line).startsWith("admitted=");
                admitted.add(Integer.parseInt(line.substring("admitted=".length())));
                total += admitted.get(admitted.size() - 1);
            }
            assertThat(total).as("admitted by the two instances " + admitted).isEqualTo(permitLimit);
            for (Process instance : instances) {
                assertThat(instance.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(instance.exitValue()).isZero();
            }
        } finally {
            instances.forEach(Process::destroyForcibly);
        }
    }
}
